package io.bloomguard.kotlin.app

/** The coroutine repository guarded by a `local` filter, in this JVM. */
class LocalCoroutineGuardTest : CoroutineGuardContract() {

    override fun properties(): Map<String, Any> = mapOf("bloom-guard.filters.users.backend" to "local")
}
