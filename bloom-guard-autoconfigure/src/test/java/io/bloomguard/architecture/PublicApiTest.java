package io.bloomguard.architecture;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The line between the API and the internals, as docs/api.md draws it: every public type of the library says which
 * side it is on in its Javadoc ({@code @since} for the API, {@code @hidden} for the rest, which the published
 * Javadoc leaves out), and docs/api.md lists exactly the API. A new public type fails here until it is put on a side.
 */
class PublicApiTest {

    private static final Path SOURCES = Path.of("src/main/java");
    private static final Path API_PAGE = Path.of("../docs/api.md");
    private static final Pattern PUBLIC_TYPE = Pattern.compile(
            "^public (?:final |abstract |sealed |non-sealed )*(?:class|interface|record|enum|@interface) (\\w+)",
            Pattern.MULTILINE);
    private static final Pattern PACKAGE = Pattern.compile("^package ([\\w.]+);", Pattern.MULTILINE);
    private static final Pattern LISTED = Pattern.compile("`(io\\.bloomguard\\.[\\w.]+\\.[A-Z]\\w*)`");

    @Test
    void everyPublicTypeIsEitherApiSinceAVersionOrHiddenAsInternal() throws IOException {
        Map<String, String> sides = sides();
        assertThat(sides).isNotEmpty();
        assertThat(sides).allSatisfy((type, side) -> assertThat(side)
                .as("%s must say @since (API, listed in docs/api.md) or @hidden (internal) in its Javadoc", type)
                .isIn("api", "internal"));
    }

    @Test
    void theApiPageListsExactlyTheApiTypes() throws IOException {
        Set<String> api = sides().entrySet().stream().filter(side -> side.getValue().equals("api"))
                .map(Map.Entry::getKey).collect(Collectors.toCollection(TreeSet::new));
        Set<String> listed = new TreeSet<>();
        Matcher matcher = LISTED.matcher(Files.readString(API_PAGE));
        while (matcher.find()) {
            listed.add(matcher.group(1));
        }
        assertThat(listed).as("types docs/api.md lists").containsExactlyElementsOf(api);
    }

    @Test
    void namedBloomFilterHidesTheMethodsThatDriveItsLifecycle() throws IOException {
        String source = Files.readString(SOURCES.resolve("io/bloomguard/registry/NamedBloomFilter.java"));
        for (String method : new String[] { "transitionTo(", "finishLoading(", "keySource(", "sharedKeyFeed(",
                "recover(", "markIncomplete(", "holdIncomplete(" }) {
            int declaration = source.indexOf(" " + method);
            assertThat(declaration).as(method).isPositive();
            String javadoc = source.substring(source.lastIndexOf("/**", declaration), declaration);
            assertThat(javadoc).as("the Javadoc of %s", method).contains("@hidden");
        }
    }

    /** Each public top-level type's side: "api" ({@code @since}), "internal" ({@code @hidden}), or "none"/"both". */
    private static Map<String, String> sides() throws IOException {
        Map<String, String> sides = new TreeMap<>();
        try (Stream<Path> files = Files.walk(SOURCES)) {
            for (Path file : files.filter(path -> path.toString().endsWith(".java")).toList()) {
                String source = Files.readString(file);
                Matcher type = PUBLIC_TYPE.matcher(source);
                Matcher pkg = PACKAGE.matcher(source);
                if (!type.find() || !pkg.find()) {
                    continue;
                }
                String head = source.substring(0, type.start());
                int javadoc = head.lastIndexOf("/**");
                String doc = javadoc < 0 ? "" : head.substring(javadoc);
                boolean since = doc.contains("@since");
                boolean hidden = doc.contains("@hidden");
                sides.put(pkg.group(1) + "." + type.group(1),
                        since && hidden ? "both" : since ? "api" : hidden ? "internal" : "none");
            }
        }
        return sides;
    }
}
