package io.bloomguard.redis;

import io.bloomguard.redis.port.LuaScript;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The name and SHA-1 of every Lua script the Redis backend sends. The bodies are a contract between versions: the
 * scripts write the stored data, and during a rolling deploy instances of two versions run theirs on the same keys and
 * share Redis's script cache, keyed by SHA-1 ({@code EVALSHA}). A moved or reformatted body changes its SHA-1; a
 * failure here means a script changed: keep it byte for byte, or prove that data written by either body is read by
 * the other. Moving a script to another class changes only the first column.
 */
class LuaScriptsGoldenTest {

    private static final String PACKAGE = "io.bloomguard.redis.";

    /** Class (under io.bloomguard.redis), field, script name, SHA-1 of its body, as recorded before the move. */
    private static final String SCRIPTS = """
            kind.RedisScripts              ADD             add                 84e4577377ace44caab4a815691fda8555a73223
            kind.RedisScripts              PUBLISH_ADDS    publish-adds        1a782d29bb33234ae5b45b8dd4fe7062bd860fb2
            kind.RedisScripts              CHECK_ALL       check-all           ff1d561e143ded616bbee5558b58e935cf1d9fc4
            kind.RedisScripts              BEGIN           begin               d511932ffbffedae8ca650484e908f45fa26d797
            kind.RedisScripts              FINISH          finish              7ba14cf8c29e02a658e14fc21b44c76f350ddd31
            kind.RedisScripts              LOCK            lock                2635a4b05d83ab06a780a0857a1b04d73737d91e
            kind.RedisScripts              RENEW           renew               db838a8751b39926a11402b8492ade99c4c7ae83
            kind.RedisScripts              RELEASE         release             e5a212447e6ae33c5b92e0c862054e8ac229b69b
            kind.RedisScripts              MARK_STALE      mark-stale          cb85987902ee89eaf32ea6cc39674483c6f218e2
            kind.counting.CounterScripts   ADD             add-counting        dd1a18af99746f5b2bb1a9acd74b0ff7dc87a181
            kind.counting.CounterScripts   REMOVE          remove              f8b29d904d0369067f6f9ef7675c4f6c9c45a392
            kind.counting.CounterScripts   CHECK_ALL       check-all-counting  8937447869acd967a68fa6e93a8abbf46848b00e
            kind.counting.CounterScripts   MERGE           merge-counters      8c513991d55ff5d018f726224805c1a189697b83
            kind.counting.CounterScripts   COUNT_NON_ZERO  count-non-zero      8cc51604e2b7cbdac5965db93cb2d950757ee4bb
            kind.layered.LayerScripts      CHECK           check-layers        50c8cc0456433c547ffaea28364369df4d398064
            kind.layered.LayerScripts      ADD             add-layers          b9df36961064a689eddee7bb54c26b799f1f22f7
            kind.bf.NativeBloomScripts     CHECK           bf-check            a5954393d5421b5338abd270b43de24fe35fd8e6
            kind.bf.NativeBloomScripts     CHECK_ALL       bf-check-all        da16826471cf55156f97b402f081f3aa0bff0e8d
            kind.bf.NativeBloomScripts     ADD             bf-add              a4716f82766d3a7a24d1c5a8d3341a7f83d2b5e4
            kind.bf.NativeBloomScripts     BUILD_INSERT    bf-build-insert     f6b45a60654fd85b2e73e0c7b8d5ca9f407a4f05
            kind.bf.NativeBloomScripts     CARD            bf-card             62726f61852b96d3f9210b3c9f4a4533d4b3978f
            kind.bf.NativeBloomScripts     BEGIN           bf-begin            78ab216d42e1e11a78495fe918d954d933362269
            kind.bf.NativeBloomScripts     FINISH          bf-finish           ff4195a9b97c58686ddac79252d2cc19fa502a5e
            kind.cf.NativeCuckooScripts    CHECK           cf-check            65b28a9642bab652f87636ad81604a1a2600a26f
            kind.cf.NativeCuckooScripts    CHECK_ALL       cf-check-all        347638de384d9e856462cfe2dbadfbfbea1169e3
            kind.cf.NativeCuckooScripts    COUNT           cf-count            59af27a311db6f03870d27dc5669fbf82954969c
            kind.cf.NativeCuckooScripts    ADD             cf-add              3a20c9abfac887d2146cf31d0678001b0317a651
            kind.cf.NativeCuckooScripts    BUILD_INSERT    cf-build-insert     f841fbf3c3d7380b1945ac18f02fb3fddbaf1cc7
            kind.cf.NativeCuckooScripts    REMOVE          cf-remove           7dc47abf12eb1c329ba5bef4d14ba4ec196cc4e4
            kind.cf.NativeCuckooScripts    BEGIN           cf-begin            4473c5598ec62422ee13f82e11f416f7b4ef7d88
            kind.cf.NativeCuckooScripts    FINISH          cf-finish           0785c020dea9c246b3dfdd93c4d52520ea828219
            engine.RedisLiveProbe          STILL_LIVE      still-live          e0e938c06bcc0dd7f060c9ec2b84feb0f379f6ad
            engine.RedisStoredState        RECORD_LOSS     record-loss         1c7bbcb6fb627581a188a9e2117200795070b299
            engine.RedisKeyTypes           FIND            key-types           e05ce1d6c55cac6481c2e3ddd354e37fec4f5e5f
            engine.RedisAcknowledgedAdds   PRUNE           prune-acks          befc5129a37786c815fde74f37e63136d0921090
            engine.RedisAcknowledgedAdds   STAMP           stamp-acks          4d4b0e9a7e00bc5b189cda29adbbbad6ec40a054
            engine.RedisAcknowledgedAdds   DROP            drop-acks           6c17e688d737c45b10c7205837f0bf9d5585f1ea
            engine.RedisFeedState          LEAD            feed-lead           fcd901172f1ae58db0ddfd92ad11799d92f3dbda
            engine.RedisFeedState          SAVE            feed-save           220be308660af094b47ec21eb49705f3440040cd
            engine.RedisFeedState          RELEASE         feed-release        597ebe453b005065ffa1eb6f71d73f7d908107a4
            engine.RedisServerKindChoice   HAS_COMMAND     has-command         55786a3b6819e82e5f13951f40abcd27c602e439
            engine.ForeignKeyState         INFO            foreign-info        e898177f9ff033221f4d0e0942cad1aa68b74e0d
            engine.ForeignOwedAdds         MARK            foreign-mark        e458b48df85c9909037784d606b975ae4970ce45
            kind.cf.NativeCuckooScripts    FOREIGN_REMOVE  cf-foreign-remove   068717ee7cc6cc7ab00efc3fa57aa6d85d5ab976
            engine.RedisLeaseSwitch        SWITCH          lease-switch        aaa2da7536e6edf093a0d5ba5113a18bc35a813f
            engine.RedisLeaseSwitch        STATE           lease-state         7934d548f36d890b9ed162a538d53fda76a5555d
            """;

    @Test
    void everyScriptRunsTheBodyThePreviousVersionRanOnTheSameData() throws Exception {
        SoftAssertions softly = new SoftAssertions();
        for (String[] row : rows()) {
            LuaScript script = (LuaScript) constant(row[0], row[1]);
            softly.assertThat(script.name()).as(row[1] + " in " + row[0]).isEqualTo(row[2]);
            softly.assertThat(sha1(script.source())).as("body of " + row[2]).isEqualTo(row[3]);
            softly.assertThat(script.sha1()).as("EVALSHA of " + row[2]).isEqualTo(row[3]);
        }
        softly.assertAll();
    }

    /** The access check sends its body with a random comment appended (see RedisAccessCheck); the body is pinned. */
    @Test
    void theAccessCheckTriesTheCommandsThePreviousVersionTried() throws Exception {
        String source = (String) constant("engine.RedisAccessCheck", "SCRIPT_SOURCE");
        assertThat(sha1(source)).isEqualTo("293f9a479cf117979e033d947ab6e695a30cff7e");
    }

    /** A script this table does not list would be a change of the stored data that nothing pins. */
    @Test
    void everyScriptTheBackendSendsIsPinnedHere() throws Exception {
        Set<String> listed = rows().stream().map(row -> row[0] + "." + row[1])
            .collect(Collectors.toCollection(TreeSet::new));
        assertThat(scriptConstants()).isEqualTo(listed);
    }

    private static List<String[]> rows() {
        return SCRIPTS.lines().map(line -> line.trim().split("\\s+")).toList();
    }

    private static Object constant(String className, String field) throws ReflectiveOperationException {
        Field constant = Class.forName(PACKAGE + className).getDeclaredField(field);
        constant.setAccessible(true);
        return constant.get(null);
    }

    /** {@code package.Class.FIELD} of every static {@link LuaScript} of the main classes under {@link #PACKAGE}. */
    private static Set<String> scriptConstants() throws Exception {
        Path location = Path.of(LuaScript.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        Path root = Files.isDirectory(location) ? location : FileSystems.newFileSystem(location).getPath("/");
        Set<String> found = new TreeSet<>();
        try (Stream<Path> files = Files.walk(root.resolve("io/bloomguard/redis"))) {
            for (Path file : files.filter(path -> path.toString().endsWith(".class")).toList()) {
                String name = root.relativize(file).toString().replace(root.getFileSystem().getSeparator(), ".");
                Class<?> type = Class.forName(name.substring(0, name.length() - ".class".length()), false,
                        LuaScript.class.getClassLoader());
                for (Field field : type.getDeclaredFields()) {
                    if (Modifier.isStatic(field.getModifiers()) && field.getType() == LuaScript.class) {
                        found.add(type.getName().substring(PACKAGE.length()) + "." + field.getName());
                    }
                }
            }
        }
        assertThat(found).as("scripts found under " + root).isNotEmpty();
        return found;
    }

    private static String sha1(String source) throws Exception {
        byte[] digest = MessageDigest.getInstance("SHA-1").digest(source.getBytes(StandardCharsets.UTF_8));
        return HexFormat.of().formatHex(digest);
    }
}
