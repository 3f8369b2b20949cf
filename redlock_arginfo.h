/* This is a generated file, edit the .stub.php file instead.
 * Stub hash: 69454e6518cd769b473cefa529934d1778ba68c4 */

ZEND_BEGIN_ARG_INFO_EX(arginfo_class_RedLock___construct, 0, 0, 1)
	ZEND_ARG_TYPE_INFO(0, nodes, IS_ARRAY, 0)
	ZEND_ARG_TYPE_INFO_WITH_DEFAULT_VALUE(0, options, IS_ARRAY, 0, "[]")
ZEND_END_ARG_INFO()

ZEND_BEGIN_ARG_WITH_RETURN_OBJ_INFO_EX(arginfo_class_RedLock_lock, 0, 2, RedLock\\Lock, 1)
	ZEND_ARG_TYPE_INFO(0, resource, IS_STRING, 0)
	ZEND_ARG_TYPE_INFO(0, ttl, IS_LONG, 0)
	ZEND_ARG_TYPE_INFO_WITH_DEFAULT_VALUE(0, options, IS_ARRAY, 0, "[]")
ZEND_END_ARG_INFO()

ZEND_BEGIN_ARG_WITH_RETURN_TYPE_INFO_EX(arginfo_class_RedLock_synchronized, 0, 3, IS_MIXED, 0)
	ZEND_ARG_TYPE_INFO(0, resource, IS_STRING, 0)
	ZEND_ARG_TYPE_INFO(0, ttl, IS_LONG, 0)
	ZEND_ARG_TYPE_INFO(0, fn, IS_CALLABLE, 0)
	ZEND_ARG_TYPE_INFO_WITH_DEFAULT_VALUE(0, options, IS_ARRAY, 0, "[]")
ZEND_END_ARG_INFO()

ZEND_BEGIN_ARG_WITH_RETURN_TYPE_INFO_EX(arginfo_class_RedLock_isLocked, 0, 1, _IS_BOOL, 0)
	ZEND_ARG_TYPE_INFO(0, resource, IS_STRING, 0)
ZEND_END_ARG_INFO()

ZEND_BEGIN_ARG_WITH_RETURN_OBJ_INFO_EX(arginfo_class_RedLock_restore, 0, 2, RedLock\\Lock, 0)
	ZEND_ARG_TYPE_INFO(0, resource, IS_STRING, 0)
	ZEND_ARG_TYPE_INFO(0, token, IS_STRING, 0)
	ZEND_ARG_TYPE_INFO_WITH_DEFAULT_VALUE(0, options, IS_ARRAY, 0, "[]")
ZEND_END_ARG_INFO()

#define arginfo_class_RedLock_forceRelease arginfo_class_RedLock_isLocked

ZEND_BEGIN_ARG_WITH_RETURN_OBJ_INFO_EX(arginfo_class_RedLock_lockAll, 0, 2, RedLock\\Lock, 1)
	ZEND_ARG_TYPE_INFO(0, resources, IS_ARRAY, 0)
	ZEND_ARG_TYPE_INFO(0, ttl, IS_LONG, 0)
	ZEND_ARG_TYPE_INFO_WITH_DEFAULT_VALUE(0, options, IS_ARRAY, 0, "[]")
ZEND_END_ARG_INFO()

ZEND_BEGIN_ARG_WITH_RETURN_OBJ_INFO_EX(arginfo_class_RedLock_semaphore, 0, 3, RedLock\\Lock, 1)
	ZEND_ARG_TYPE_INFO(0, resource, IS_STRING, 0)
	ZEND_ARG_TYPE_INFO(0, limit, IS_LONG, 0)
	ZEND_ARG_TYPE_INFO(0, ttl, IS_LONG, 0)
	ZEND_ARG_TYPE_INFO_WITH_DEFAULT_VALUE(0, options, IS_ARRAY, 0, "[]")
ZEND_END_ARG_INFO()

ZEND_BEGIN_ARG_WITH_RETURN_TYPE_INFO_EX(arginfo_class_RedLock_releaseAll, 0, 0, IS_LONG, 0)
ZEND_END_ARG_INFO()

#define arginfo_class_RedLock_quorum arginfo_class_RedLock_releaseAll

ZEND_BEGIN_ARG_WITH_RETURN_TYPE_INFO_EX(arginfo_class_RedLock_nodes, 0, 0, IS_ARRAY, 0)
ZEND_END_ARG_INFO()

#define arginfo_class_RedLock_stats arginfo_class_RedLock_nodes

ZEND_BEGIN_ARG_WITH_RETURN_TYPE_INFO_EX(arginfo_class_RedLock_metrics, 0, 0, IS_STRING, 0)
ZEND_END_ARG_INFO()

ZEND_BEGIN_ARG_WITH_RETURN_TYPE_INFO_EX(arginfo_class_RedLock_Lock_release, 0, 0, _IS_BOOL, 0)
ZEND_END_ARG_INFO()

ZEND_BEGIN_ARG_WITH_RETURN_TYPE_INFO_EX(arginfo_class_RedLock_Lock_extend, 0, 1, _IS_BOOL, 0)
	ZEND_ARG_TYPE_INFO(0, ttl, IS_LONG, 0)
ZEND_END_ARG_INFO()

#define arginfo_class_RedLock_Lock_isValid arginfo_class_RedLock_Lock_release

#define arginfo_class_RedLock_Lock_remaining arginfo_class_RedLock_releaseAll

#define arginfo_class_RedLock_Lock_isReleased arginfo_class_RedLock_Lock_release

#define arginfo_class_RedLock_Lock_isHeld arginfo_class_RedLock_Lock_release


ZEND_METHOD(RedLock, __construct);
ZEND_METHOD(RedLock, lock);
ZEND_METHOD(RedLock, synchronized);
ZEND_METHOD(RedLock, isLocked);
ZEND_METHOD(RedLock, restore);
ZEND_METHOD(RedLock, forceRelease);
ZEND_METHOD(RedLock, lockAll);
ZEND_METHOD(RedLock, semaphore);
ZEND_METHOD(RedLock, releaseAll);
ZEND_METHOD(RedLock, quorum);
ZEND_METHOD(RedLock, nodes);
ZEND_METHOD(RedLock, stats);
ZEND_METHOD(RedLock, metrics);
ZEND_METHOD(RedLock_Lock, release);
ZEND_METHOD(RedLock_Lock, extend);
ZEND_METHOD(RedLock_Lock, isValid);
ZEND_METHOD(RedLock_Lock, remaining);
ZEND_METHOD(RedLock_Lock, isReleased);
ZEND_METHOD(RedLock_Lock, isHeld);


static const zend_function_entry class_RedLock_methods[] = {
	ZEND_ME(RedLock, __construct, arginfo_class_RedLock___construct, ZEND_ACC_PUBLIC)
	ZEND_ME(RedLock, lock, arginfo_class_RedLock_lock, ZEND_ACC_PUBLIC)
	ZEND_ME(RedLock, synchronized, arginfo_class_RedLock_synchronized, ZEND_ACC_PUBLIC)
	ZEND_ME(RedLock, isLocked, arginfo_class_RedLock_isLocked, ZEND_ACC_PUBLIC)
	ZEND_ME(RedLock, restore, arginfo_class_RedLock_restore, ZEND_ACC_PUBLIC)
	ZEND_ME(RedLock, forceRelease, arginfo_class_RedLock_forceRelease, ZEND_ACC_PUBLIC)
	ZEND_ME(RedLock, lockAll, arginfo_class_RedLock_lockAll, ZEND_ACC_PUBLIC)
	ZEND_ME(RedLock, semaphore, arginfo_class_RedLock_semaphore, ZEND_ACC_PUBLIC)
	ZEND_ME(RedLock, releaseAll, arginfo_class_RedLock_releaseAll, ZEND_ACC_PUBLIC|ZEND_ACC_STATIC)
	ZEND_ME(RedLock, quorum, arginfo_class_RedLock_quorum, ZEND_ACC_PUBLIC)
	ZEND_ME(RedLock, nodes, arginfo_class_RedLock_nodes, ZEND_ACC_PUBLIC)
	ZEND_ME(RedLock, stats, arginfo_class_RedLock_stats, ZEND_ACC_PUBLIC)
	ZEND_ME(RedLock, metrics, arginfo_class_RedLock_metrics, ZEND_ACC_PUBLIC|ZEND_ACC_STATIC)
	ZEND_FE_END
};


static const zend_function_entry class_RedLock_Lock_methods[] = {
	ZEND_ME(RedLock_Lock, release, arginfo_class_RedLock_Lock_release, ZEND_ACC_PUBLIC)
	ZEND_ME(RedLock_Lock, extend, arginfo_class_RedLock_Lock_extend, ZEND_ACC_PUBLIC)
	ZEND_ME(RedLock_Lock, isValid, arginfo_class_RedLock_Lock_isValid, ZEND_ACC_PUBLIC)
	ZEND_ME(RedLock_Lock, remaining, arginfo_class_RedLock_Lock_remaining, ZEND_ACC_PUBLIC)
	ZEND_ME(RedLock_Lock, isReleased, arginfo_class_RedLock_Lock_isReleased, ZEND_ACC_PUBLIC)
	ZEND_ME(RedLock_Lock, isHeld, arginfo_class_RedLock_Lock_isHeld, ZEND_ACC_PUBLIC)
	ZEND_FE_END
};


static const zend_function_entry class_RedLock_Exception_methods[] = {
	ZEND_FE_END
};


static const zend_function_entry class_RedLock_QuorumException_methods[] = {
	ZEND_FE_END
};


static const zend_function_entry class_RedLock_LockConflictException_methods[] = {
	ZEND_FE_END
};


static const zend_function_entry class_RedLock_LockLostException_methods[] = {
	ZEND_FE_END
};

static zend_class_entry *register_class_RedLock(void)
{
	zend_class_entry ce, *class_entry;

	INIT_CLASS_ENTRY(ce, "RedLock", class_RedLock_methods);
	class_entry = zend_register_internal_class_ex(&ce, NULL);
	class_entry->ce_flags |= ZEND_ACC_FINAL|ZEND_ACC_NO_DYNAMIC_PROPERTIES|ZEND_ACC_NOT_SERIALIZABLE;

	return class_entry;
}

static zend_class_entry *register_class_RedLock_Lock(void)
{
	zend_class_entry ce, *class_entry;

	INIT_NS_CLASS_ENTRY(ce, "RedLock", "Lock", class_RedLock_Lock_methods);
	class_entry = zend_register_internal_class_ex(&ce, NULL);
	class_entry->ce_flags |= ZEND_ACC_FINAL|ZEND_ACC_NO_DYNAMIC_PROPERTIES|ZEND_ACC_NOT_SERIALIZABLE;

	zval property_resource_default_value;
	ZVAL_UNDEF(&property_resource_default_value);
	zend_string *property_resource_name = zend_string_init("resource", sizeof("resource") - 1, 1);
	zend_declare_typed_property(class_entry, property_resource_name, &property_resource_default_value, ZEND_ACC_PUBLIC|ZEND_ACC_READONLY, NULL, (zend_type) ZEND_TYPE_INIT_MASK(MAY_BE_STRING));
	zend_string_release(property_resource_name);

	zval property_token_default_value;
	ZVAL_UNDEF(&property_token_default_value);
	zend_string *property_token_name = zend_string_init("token", sizeof("token") - 1, 1);
	zend_declare_typed_property(class_entry, property_token_name, &property_token_default_value, ZEND_ACC_PUBLIC|ZEND_ACC_READONLY, NULL, (zend_type) ZEND_TYPE_INIT_MASK(MAY_BE_STRING));
	zend_string_release(property_token_name);

	zval property_ttl_default_value;
	ZVAL_UNDEF(&property_ttl_default_value);
	zend_string *property_ttl_name = zend_string_init("ttl", sizeof("ttl") - 1, 1);
	zend_declare_typed_property(class_entry, property_ttl_name, &property_ttl_default_value, ZEND_ACC_PUBLIC|ZEND_ACC_READONLY, NULL, (zend_type) ZEND_TYPE_INIT_MASK(MAY_BE_LONG));
	zend_string_release(property_ttl_name);

	zval property_fence_default_value;
	ZVAL_UNDEF(&property_fence_default_value);
	zend_string *property_fence_name = zend_string_init("fence", sizeof("fence") - 1, 1);
	zend_declare_typed_property(class_entry, property_fence_name, &property_fence_default_value, ZEND_ACC_PUBLIC|ZEND_ACC_READONLY, NULL, (zend_type) ZEND_TYPE_INIT_MASK(MAY_BE_LONG|MAY_BE_NULL));
	zend_string_release(property_fence_name);

	zval property_resources_default_value;
	ZVAL_UNDEF(&property_resources_default_value);
	zend_string *property_resources_name = zend_string_init("resources", sizeof("resources") - 1, 1);
	zend_declare_typed_property(class_entry, property_resources_name, &property_resources_default_value, ZEND_ACC_PUBLIC|ZEND_ACC_READONLY, NULL, (zend_type) ZEND_TYPE_INIT_MASK(MAY_BE_ARRAY));
	zend_string_release(property_resources_name);

	zval property_mode_default_value;
	ZVAL_UNDEF(&property_mode_default_value);
	zend_string *property_mode_name = zend_string_init("mode", sizeof("mode") - 1, 1);
	zend_declare_typed_property(class_entry, property_mode_name, &property_mode_default_value, ZEND_ACC_PUBLIC|ZEND_ACC_READONLY, NULL, (zend_type) ZEND_TYPE_INIT_MASK(MAY_BE_STRING));
	zend_string_release(property_mode_name);

	return class_entry;
}

static zend_class_entry *register_class_RedLock_Exception(zend_class_entry *class_entry_RuntimeException)
{
	zend_class_entry ce, *class_entry;

	INIT_NS_CLASS_ENTRY(ce, "RedLock", "Exception", class_RedLock_Exception_methods);
	class_entry = zend_register_internal_class_ex(&ce, class_entry_RuntimeException);

	return class_entry;
}

static zend_class_entry *register_class_RedLock_QuorumException(zend_class_entry *class_entry_RedLock_Exception)
{
	zend_class_entry ce, *class_entry;

	INIT_NS_CLASS_ENTRY(ce, "RedLock", "QuorumException", class_RedLock_QuorumException_methods);
	class_entry = zend_register_internal_class_ex(&ce, class_entry_RedLock_Exception);
	class_entry->ce_flags |= ZEND_ACC_FINAL;

	return class_entry;
}

static zend_class_entry *register_class_RedLock_LockConflictException(zend_class_entry *class_entry_RedLock_Exception)
{
	zend_class_entry ce, *class_entry;

	INIT_NS_CLASS_ENTRY(ce, "RedLock", "LockConflictException", class_RedLock_LockConflictException_methods);
	class_entry = zend_register_internal_class_ex(&ce, class_entry_RedLock_Exception);
	class_entry->ce_flags |= ZEND_ACC_FINAL;

	return class_entry;
}

static zend_class_entry *register_class_RedLock_LockLostException(zend_class_entry *class_entry_RedLock_Exception)
{
	zend_class_entry ce, *class_entry;

	INIT_NS_CLASS_ENTRY(ce, "RedLock", "LockLostException", class_RedLock_LockLostException_methods);
	class_entry = zend_register_internal_class_ex(&ce, class_entry_RedLock_Exception);
	class_entry->ce_flags |= ZEND_ACC_FINAL;

	return class_entry;
}
