package io.bloomguard.guard;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class LostKeyReportsTest {

    private final LostKeyReports reports = new LostKeyReports();

    @Test
    void aMethodsFirstLostKeyIsReportedAndTheNextOnesWithinTheMinuteAreCountedNotLogged() {
        assertThat(reports.reportNow("Users.save")).as("first: reported, nothing suppressed").isZero();
        for (int i = 0; i < 100; i++) {
            assertThat(reports.reportNow("Users.save")).as("within the minute").isNegative();
        }
        assertThat(reports.reportNow("Orders.save")).as("another method is reported on its own").isZero();
    }
}
