/**
 * The filter contract and everything that decides where a key's bits go: sizing, key canonicalization,
 * hashing and the blocked bit layout. Imports nothing from Spring.
 */
@NullMarked
package io.bloomguard.core;

import org.jspecify.annotations.NullMarked;
