package io.bloomguard.testapp;

/** A generic lookup interface: calls through it reach an implementation by way of a bridge method. */
public interface Finder<T> {

    T find(Long id);
}
