package io.bloomguard.sample;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.NoSuchElementException;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.Select;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.web.client.RestClient;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The live page at {@code /} in a real browser: headless Chromium driven by chromedriver, both Debian's
 * ({@code apt-get install chromium chromium-driver}); skipped when they are missing. Other paths:
 * {@code -Dwebdriver.chrome.driver=...} and {@code -Dchromium.binary=...}. Selenium Manager never runs, so
 * nothing is downloaded. A failing test leaves a screenshot in {@code target/}.
 */
// visited-urls: a filter filled by puts alone, with nothing to rebuild from. Selenium looks for DevTools classes
// matching the browser's version, which the tests never use: no warning about them.
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT, properties = {
        "bloom-guard.filters.visited-urls.expected-size=1000",
        "logging.level.org.openqa.selenium.devtools.CdpVersionFinder=error",
        "logging.level.org.openqa.selenium.chromium.ChromiumDriver=error" })
class LivePageIT {

    private static final Path CHROMEDRIVER = Path.of(System.getProperty("webdriver.chrome.driver",
            "/usr/bin/chromedriver"));

    private static final Path CHROMIUM = Path.of(System.getProperty("chromium.binary", "/usr/bin/chromium"));

    /** Counts the pixels of the rejected line (--rejected, #d9480f) in the top 60% of a canvas: above zero. */
    private static final String REJECTED_PIXELS_HIGH_UP = """
            const canvas = arguments[0];
            const context = canvas.getContext('2d');
            const pixels = context.getImageData(0, 0, canvas.width, Math.floor(canvas.height * 0.6)).data;
            let count = 0;
            for (let i = 0; i < pixels.length; i += 4) {
                if (Math.abs(pixels[i] - 0xd9) < 40 && Math.abs(pixels[i + 1] - 0x48) < 40
                        && Math.abs(pixels[i + 2] - 0x0f) < 40 && pixels[i + 3] > 200) {
                    count++;
                }
            }
            return count;""";

    @LocalServerPort
    int port;

    ChromeDriver browser;

    @RegisterExtension
    final TestExecutionExceptionHandler screenshotOnFailure = (context, failure) -> {
        saveScreenshot(context.getRequiredTestMethod().getName());
        throw failure;
    };

    @BeforeEach
    void openPage() {
        // Per test, not in @BeforeAll: a class-level skip is reported as no tests at all, and without the reason.
        assumeTrue(Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER),
                () -> "LivePageIT needs Chromium at " + CHROMIUM + " and chromedriver at " + CHROMEDRIVER
                        + "; on Debian: apt-get install chromium chromium-driver");
        // Both paths given, so Selenium Manager has nothing to look up or download.
        ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(CHROMEDRIVER.toFile())
                .usingAnyFreePort().build();
        ChromeOptions options = new ChromeOptions().setBinary(CHROMIUM.toFile())
                .addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,1000");
        browser = new ChromeDriver(service, options);
        browser.get("http://localhost:" + port + "/");
    }

    @AfterEach
    void closeBrowser() {
        if (browser != null) {
            browser.quit();
        }
    }

    @Test
    void floodOfAbsentIdsShowsRejectionsRisingAndTheChartMoving() {
        WebElement users = readyFilter("users");
        WebElement rates = users.findElement(By.cssSelector("[data-chart=rates]"));
        double rejectedBefore = number(users, "rejected");
        assertThat(rejectedPixelsHighUp(rates)).as("rejected line before the flood, above zero").isZero();

        new Select(browser.findElement(By.id("flood-count"))).selectByValue("100000");
        browser.findElement(By.id("flood-absent")).click();

        // While the flood runs: a rejection rate, and the rejected line off the floor of the chart.
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            assertThat(number(users, "rejectedRate")).as("rejected per second").isGreaterThan(100);
            assertThat(Double.parseDouble(rates.getDomAttribute("data-rejected-rate"))).isGreaterThan(100);
            assertThat(rejectedPixelsHighUp(rates)).as("rejected line above zero").isPositive();
        });
        WebElement flood = browser.findElement(By.id("flood-status"));
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(flood.getText()).startsWith("Done:"));
        // The filter holds ~5,000 of its 10,000 expected ids, so far fewer than 1% of the absent ids get through.
        await().atMost(Duration.ofSeconds(5)).untilAsserted(
                () -> assertThat(number(users, "rejected")).isGreaterThan(rejectedBefore + 99_000));
        assertThat(flood.getText()).contains("100,000 of 100,000 absent user ids", "100,000 empty");
    }

    /**
     * The page calls keys over capacity "Capacity used", as the endpoint ({@code capacityRatio}), the meter
     * ({@code bloomguard.capacity.ratio}) and the dashboard do; "fill" is the share of set bits, which it does not show.
     */
    @Test
    void capacityUsedIsTheKeysOverTheCapacityTheFilterIsSizedFor() {
        WebElement users = readyFilter("users");
        assertThat(users.findElement(By.cssSelector("[data-field=capacityLabel]")).getText())
                .isEqualToIgnoringCase("Capacity used"); // the page shows labels in capitals
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
            double keys = number(users, "approximateElements");
            double capacity = number(users, "capacity");
            assertThat(keys).isPositive();
            assertThat(number(users, "capacityRatio")).isCloseTo(keys / capacity, within(1e-9));
        });
        assertThat(users.getText()).doesNotContainIgnoringCase("fill");
    }

    @Test
    void rebuildButtonShowsTheKeysRead() {
        WebElement users = readyFilter("users");

        users.findElement(By.cssSelector("[data-action=rebuild]")).click();

        // Its preload query reads every user: the 5,000 seeded ones, and any a test created.
        WebElement status = users.findElement(By.cssSelector("[data-field=rebuildStatus]"));
        await().atMost(Duration.ofSeconds(30))
                .untilAsserted(() -> assertThat(status.getText()).matches("Rebuilt from 5,\\d{3} keys in .* ms"));
    }

    @Test
    void rebuildButtonShowsWhyAFilterCannotRebuild() {
        WebElement visitedUrls = readyFilter("visited-urls");

        visitedUrls.findElement(By.cssSelector("[data-action=rebuild]")).click();

        // The server's reason, which names the filter, rather than a bare status.
        WebElement status = visitedUrls.findElement(By.cssSelector("[data-field=rebuildStatus]"));
        await().atMost(Duration.ofSeconds(30))
                .untilAsserted(() -> assertThat(status.getText()).startsWith("Cannot rebuild: HTTP 409: ")
                        .contains("visited-urls"));
        assertThat(status.getDomAttribute("class")).contains("error");
    }

    /** The users filter's change feed: its state, lag and the keys it added, which grow with a row written elsewhere. */
    @Test
    void changeFeedShowsItsStateLagAndTheKeysItAdded() {
        WebElement users = readyFilter("users");
        double addedBefore = number(users, "feedAdded");

        RestClient.create("http://localhost:" + port).post().uri("/demo/insert-elsewhere").retrieve()
                .toBodilessEntity();

        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            assertThat(number(users, "feedAdded")).isGreaterThan(addedBefore);
            assertThat(users.findElement(By.cssSelector("[data-field=feedState]")).getText()).isEqualTo("RUNNING");
            assertThat(number(users, "feedLag")).isLessThanOrEqualTo(number(users, "feedMaxLag"));
        });
        assertThat(users.findElement(By.cssSelector("[data-field=feed]")).getText()).contains("jdbc polling");
        assertThat(browser.findElement(By.cssSelector("[data-filter=products] [data-field=feed]")).isDisplayed())
                .as("products has no feed").isFalse();
    }

    @Test
    void pageLoadsNothingFromOutsideTheApplication() {
        readyFilter("products");

        @SuppressWarnings("unchecked")
        List<String> resources = (List<String>) browser.executeScript(
                "return performance.getEntriesByType('resource').map(entry => entry.name)");

        assertThat(resources).isNotEmpty()
                .allSatisfy(url -> assertThat(url).startsWith("http://localhost:" + port + "/"));
    }

    private WebElement readyFilter(String name) {
        By card = By.cssSelector("[data-filter='" + name + "']");
        // Its card appears with the first answer of the endpoint, which may still be on its way.
        await().atMost(Duration.ofSeconds(30)).ignoreExceptionsInstanceOf(NoSuchElementException.class)
                .untilAsserted(() -> assertThat(browser.findElement(card)
                        .findElement(By.cssSelector("[data-field=state]")).getText()).isEqualTo("READY"));
        // Two polls, so the page has a previous reading to take rates from.
        long polls = Long.parseLong(browser.findElement(By.tagName("body")).getDomAttribute("data-polls"));
        await().atMost(Duration.ofSeconds(10)).until(() -> Long.parseLong(
                browser.findElement(By.tagName("body")).getDomAttribute("data-polls")) > polls);
        return browser.findElement(card);
    }

    private static double number(WebElement filter, String field) {
        String value = filter.findElement(By.cssSelector("[data-field=" + field + "]")).getDomAttribute("data-value");
        assertThat(value).as(field).isNotBlank();
        return Double.parseDouble(value);
    }

    private long rejectedPixelsHighUp(WebElement canvas) {
        return ((Number) ((JavascriptExecutor) browser).executeScript(REJECTED_PIXELS_HIGH_UP, canvas)).longValue();
    }

    private void saveScreenshot(String testName) {
        if (browser == null) {
            return;
        }
        try {
            Path target = Path.of("target", "live-page-" + testName + ".png");
            Files.createDirectories(target.getParent());
            Files.write(target, ((TakesScreenshot) browser).getScreenshotAs(OutputType.BYTES));
            System.err.println("LivePageIT: screenshot of the failed page in " + target.toAbsolutePath());
        } catch (IOException | RuntimeException screenshotFailure) {
            System.err.println("LivePageIT: no screenshot (" + screenshotFailure + ")");
        }
    }
}
