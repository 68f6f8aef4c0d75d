/**
 * Whether Redis lets this instance do what a filter needs (credentials, ACL, the type of each key), and what
 * one filter knows of reaching Redis: answering, in an outage, or refused, each episode logged once.
 */
@NullMarked
package io.bloomguard.redis.access;

import org.jspecify.annotations.NullMarked;
