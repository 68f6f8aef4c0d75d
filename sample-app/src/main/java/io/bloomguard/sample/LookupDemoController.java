package io.bloomguard.sample;

import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

/**
 * A batch of user lookups and what it cost: {@code GET /demo/absent?count=} (random ids that do not exist) and
 * {@code GET /demo/existing?count=} (seeded ids). The live page's flood buttons send these in paced batches;
 * the filters' own figures are at {@code /actuator/bloomfilters}.
 */
@RestController
class LookupDemoController {

    /** Keeps one demo request from tying up the service. */
    static final int MAX_DEMO_LOOKUPS = 1_000_000;

    private final UserLookupDemo demo;

    LookupDemoController(UserLookupDemo demo) {
        this.demo = demo;
    }

    @GetMapping("/demo/absent")
    LookupRun absent(@RequestParam(defaultValue = "10000") int count) {
        return demo.absentIds(checked(count));
    }

    @GetMapping("/demo/existing")
    LookupRun existing(@RequestParam(defaultValue = "100") int count) {
        return demo.existingIds(checked(count));
    }

    private static int checked(int count) {
        if (count < 1 || count > MAX_DEMO_LOOKUPS) {
            throw new ResponseStatusException(HttpStatus.BAD_REQUEST,
                    "count must be between 1 and " + MAX_DEMO_LOOKUPS);
        }
        return count;
    }
}
