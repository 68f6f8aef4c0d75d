/**
 * Local copies of library code with one change each, measured by {@code StringKeyExperiment} against the library
 * itself. Not library code: delete a class once its question is settled.
 */
@NullMarked
package io.bloomguard.benchmarks.experiment;

import org.jspecify.annotations.NullMarked;
