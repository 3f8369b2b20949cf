<?php
declare(strict_types=1);

// Stand-ins for Laravel Octane's two events, under their real names, when Octane is not
// installed: the provider listens by class name, and the dispatcher routes an event object
// by its class. (With Octane installed its own classes are used.)
namespace Laravel\Octane\Events;

if (!class_exists(RequestTerminated::class)) {
    final class RequestTerminated
    {
    }
}
if (!class_exists(TaskTerminated::class)) {
    final class TaskTerminated
    {
    }
}
