package io.bloomguard.testapp;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs the method again once if it throws, the way a deadlock or optimistic-lock retry does: by an advice
 * between bloom-guard's and the transaction's ({@link RetryOnceAdvisor}).
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
public @interface RetryOnce {
}
