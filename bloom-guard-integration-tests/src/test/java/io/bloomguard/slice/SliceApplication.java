package io.bloomguard.slice;

import org.springframework.boot.autoconfigure.SpringBootApplication;

/** The configuration a slice test looks for; the slice decides what of the application it starts. */
@SpringBootApplication
public class SliceApplication {
}
