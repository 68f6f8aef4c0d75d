package io.bloomguard.guard;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Method;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Which advice makes a result-keyed put: the one inside the call it was announced for, once. */
class PendingPutsTest {

    interface Writes {
        Object save(Object entity);

        List<Object> saveAll(Iterable<Object> entities);
    }

    /** Declares the same method again, as a user's repository interface does. */
    interface MoreWrites extends Writes {
        @Override
        Object save(Object entity);
    }

    private final PutOperation put = new PutOperation(null, null, "Writes.save");

    @AfterEach
    void nothingLeftAnnounced() throws NoSuchMethodException {
        assertThat(PendingPuts.claim(method(Writes.class, "save"))).isNull();
    }

    @Test
    void theCallItWasAnnouncedForClaimsItOnce() throws NoSuchMethodException {
        PendingPuts.PendingPut pending = PendingPuts.begin(method(Writes.class, "save"), put);
        try {
            assertThat(PendingPuts.claim(method(Writes.class, "save"))).isSameAs(pending);
            assertThat(pending.claimed()).isTrue();
            assertThat(PendingPuts.claim(method(Writes.class, "save"))).as("a second advice").isNull();
        }
        finally {
            PendingPuts.end(pending);
        }
    }

    @Test
    void anotherMethodCalledInsideTheCallDoesNotClaimIt() throws NoSuchMethodException {
        PendingPuts.PendingPut pending = PendingPuts.begin(method(Writes.class, "saveAll"), put);
        try {
            assertThat(PendingPuts.claim(method(Writes.class, "save"))).isNull();
            assertThat(pending.claimed()).as("left for the guard to put after the call").isFalse();
        }
        finally {
            PendingPuts.end(pending);
        }
    }

    @Test
    void theSameMethodDeclaredOnAnotherInterfaceClaimsIt() throws NoSuchMethodException {
        PendingPuts.PendingPut pending = PendingPuts.begin(method(MoreWrites.class, "save"), put);
        try {
            assertThat(PendingPuts.claim(method(Writes.class, "save"))).isSameAs(pending);
        }
        finally {
            PendingPuts.end(pending);
        }
    }

    @Test
    void aNestedCallIsClaimedFirstAndTheOuterOneAfterItEnds() throws NoSuchMethodException {
        PendingPuts.PendingPut outer = PendingPuts.begin(method(Writes.class, "save"), put);
        try {
            PendingPuts.PendingPut inner = PendingPuts.begin(method(Writes.class, "save"), put);
            try {
                assertThat(PendingPuts.claim(method(Writes.class, "save"))).isSameAs(inner);
            }
            finally {
                PendingPuts.end(inner);
            }
            assertThat(PendingPuts.claim(method(Writes.class, "save"))).isSameAs(outer);
        }
        finally {
            PendingPuts.end(outer);
        }
    }

    private static Method method(Class<?> type, String name) throws NoSuchMethodException {
        return name.equals("save") ? type.getMethod(name, Object.class) : type.getMethod(name, Iterable.class);
    }
}
