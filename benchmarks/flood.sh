#!/usr/bin/env bash
# The flood, end to end: the sample application on a throwaway PostgreSQL holding a million users, driven by wrk
# through five ways of looking a user up, each under two loads:
#   cases: unguarded (the repository as written), null caching (Spring Cache caching empty results too), guard
#          local, guard redis, guard redis + near copy (on), guard redis + ordered near copy, guard redis + leased
#          near copy, and no lookup (404 at once: what the web stack alone costs, the ceiling of any guard);
#   loads: flood (distinct random absent ids), ordinary (random existing ids).
# Reports requests/s, p50/p99 latency, database statements per request (pg_stat_statements), database CPU
# (utime + stime of the postgres processes) and Redis commands per request (INFO commandstats) as a Markdown table,
# and writes it with a CSV under OUT. A case wrk gives no result for, or an application that does not start, is
# reported as such and the others are still measured.
#
# Each application (filters local, in Redis, in Redis with a near copy) is started once and measures its cases beside
# an unguarded baseline of its own, in a palindrome per load (local: unguarded, null caching, guard, guard, null
# caching, unguarded): every case is measured twice, symmetrically around the middle, so that a host that speeds up or
# slows down over the minutes (JIT, caches, other tenants) weighs on each case alike. A case's figures are the two
# runs together; each guard case is compared with the unguarded baseline of its own application.
#
#   benchmarks/flood.sh                          # 2 × 20 s per case and load: about 15 minutes
#   DURATION=3 WARMUP=1 benchmarks/flood.sh      # a smoke
#
# Settings, from the environment:
#   DURATION     seconds measured per run of a case and load; each is run twice (20)
#   WARMUP       seconds of the same load before each measurement, not measured (5)
#   THREADS      wrk threads (2); CONNECTIONS: wrk connections (32)
#   APP_HEAP     heap of the application (1g)
#   APPS         the applications run (local redis redis-near-copy redis-ordered redis-leased); the ratios to the
#                guard local need local
#   OUT          where the results and logs go (benchmarks/target/flood)
#
# Needs java and the sample's jar (built here when missing). Installs Debian's postgresql, wrk, redis-server and
# curl with apt-get when they are missing (as root, or through sudo). The database cluster lives in a temporary
# directory on a free loopback port and is removed at the end, as are the Redis server and the application.
set -Eeuo pipefail

DURATION=${DURATION:-20}
WARMUP=${WARMUP:-5}
THREADS=${THREADS:-2}
CONNECTIONS=${CONNECTIONS:-32}
APP_HEAP=${APP_HEAP:-1g}
APPS=${APPS:-local redis redis-near-copy redis-ordered redis-leased}

root=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-$root/benchmarks/target/flood}
lua=$root/benchmarks/flood/random-ids.lua
rows=1000000 # what sample-app's data-postgres.sql seeds

log() { printf '%s\n' "$*" >&2; }
as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

# --- tools ---------------------------------------------------------------------------------------------------
pg_bin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1; }
missing=()
command -v wrk >/dev/null || missing+=(wrk)
command -v curl >/dev/null || missing+=(curl)
command -v redis-server >/dev/null || missing+=(redis-server)
[ -x "$(pg_bin)/initdb" ] || missing+=(postgresql)
if [ ${#missing[@]} -gt 0 ]; then
    log "Installing ${missing[*]} with apt-get"
    if [[ " ${missing[*]} " == *" postgresql "* ]] && [ ! -e /etc/postgresql-common/createcluster.conf ]; then
        # Only the throwaway cluster below: no system cluster left running after the install.
        as_root mkdir -p /etc/postgresql-common
        echo 'create_main_cluster = false' | as_root tee /etc/postgresql-common/createcluster.conf >/dev/null
    fi
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi
PG_BIN=$(pg_bin)
[ -e "$("$PG_BIN/pg_config" --pkglibdir 2>/dev/null || echo "$PG_BIN/../lib")/pg_stat_statements.so" ] \
    || { log "pg_stat_statements is not installed next to $PG_BIN (Debian: postgresql-contrib)"; exit 1; }

jar=$(ls "$root"/sample-app/target/bloom-guard-sample-app-*.jar 2>/dev/null | grep -v '\.original$' | head -n 1 || true)
if [ -z "$jar" ]; then
    log "Building the sample application"
    (cd "$root" && ./mvnw -q -B -pl sample-app -am -DskipTests package)
    jar=$(ls "$root"/sample-app/target/bloom-guard-sample-app-*.jar | grep -v '\.original$' | head -n 1)
fi

mkdir -p "$OUT"
stamp=$(date +%Y%m%d-%H%M%S)
csv=$OUT/flood-$stamp.csv
md=$OUT/flood-$stamp.md
work=$(mktemp -d /tmp/bloom-guard-flood.XXXXXX)
chmod 755 "$work"

# --- cleanup -------------------------------------------------------------------------------------------------
app_pid=
redis_pid=
pgdir=$work/postgres
pgdata=$pgdir/data
stop_app() {
    if [ -n "$app_pid" ]; then
        kill "$app_pid" 2>/dev/null || true
        wait "$app_pid" 2>/dev/null || true
        app_pid=
    fi
}
cleanup() {
    set +e
    stop_app
    if [ -n "$redis_pid" ]; then
        kill "$redis_pid" 2>/dev/null
        wait "$redis_pid" 2>/dev/null
    fi
    [ -f "$pgdata/postmaster.pid" ] && as_pg "$PG_BIN/pg_ctl" -D "$pgdata" -m immediate stop >/dev/null 2>&1
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
# Whatever stops the script says what it was, and where.
trap 'log "flood.sh: \"$BASH_COMMAND\" failed (exit $?) at line $LINENO"' ERR

# --- PostgreSQL ----------------------------------------------------------------------------------------------
# PostgreSQL refuses to run as root: as root, the cluster runs as Debian's postgres user.
as_pg() { if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

free_port() {
    local port
    while :; do
        port=$((20000 + RANDOM % 30000))
        if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
            echo "$port"
            return
        fi
    done
}

mkdir -p "$pgdir"
[ "$(id -u)" -eq 0 ] && chown postgres: "$pgdir"
pg_port=$(free_port)
log "PostgreSQL ($PG_BIN) on 127.0.0.1:$pg_port, in $pgdir"
as_pg "$PG_BIN/initdb" -D "$pgdata" -U postgres -A trust -E UTF8 --no-locale -N >"$pgdir/initdb.log" 2>&1 \
    || { cat "$pgdir/initdb.log" >&2; exit 1; }
# A throwaway cluster: no durability. track_utility off: statements are the queries, not BEGIN / COMMIT / SET.
as_pg "$PG_BIN/pg_ctl" -D "$pgdata" -l "$pgdir/server.log" -w -o "-c port=$pg_port -c listen_addresses=127.0.0.1 \
    -c unix_socket_directories=$pgdir -c shared_preload_libraries=pg_stat_statements \
    -c pg_stat_statements.track_utility=off -c shared_buffers=256MB -c fsync=off -c synchronous_commit=off \
    -c full_page_writes=off" start >/dev/null || { cat "$pgdir/server.log" >&2; exit 1; }

psql_as() { psql -X -q -At -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$pg_port" -U postgres -d "$1" -c "$2"; }
psql_as postgres "CREATE ROLE flood LOGIN PASSWORD 'flood'"
psql_as postgres "CREATE DATABASE flood OWNER flood"
psql_as flood "CREATE EXTENSION pg_stat_statements"

clock_ticks=$(getconf CLK_TCK)
# CPU ticks of the postmaster and its children; a backend that ended was added to the postmaster's cutime/cstime.
pg_cpu_ticks() {
    local postmaster
    postmaster=$(head -n 1 "$pgdata/postmaster.pid")
    # A process may end between the glob and its read: cat then fails, which is no failure here.
    { cat /proc/[0-9]*/stat 2>/dev/null || true; } | awk -v pm="$postmaster" '
        { pid = $1; rest = $0; sub(/^[0-9]+ \(.*\) /, "", rest); split(rest, f, " ")
          # f[2] ppid, f[12] utime, f[13] stime, f[14] cutime, f[15] cstime
          if (pid == pm) total += f[12] + f[13] + f[14] + f[15]
          else if (f[2] == pm) total += f[12] + f[13] }
        END { printf "%d\n", total }'
}
app_statements() {
    psql_as flood "SELECT coalesce(sum(s.calls), 0) FROM pg_stat_statements s JOIN pg_roles r ON r.oid = s.userid
                   WHERE r.rolname = 'flood'"
}

# --- the application -----------------------------------------------------------------------------------------
app_port=
# Ready: runners done (bloom-guard's preload, then the sample's startup report with its own lookups, which must not
# count in the first case) and the users filter loaded.
app_ready() {
    curl -fs "http://127.0.0.1:$app_port/actuator/health/readiness" 2>/dev/null | grep -q '"status":"UP"' \
        && curl -fs "http://127.0.0.1:$app_port/actuator/bloomfilters/users" 2>/dev/null | grep -q '"state":"READY"'
}

# start_app NAME ARGS...: starts the sample and waits until it is ready; fails if it exits first.
start_app() {
    local name=$1
    shift
    app_port=$(free_port)
    POSTGRES_URL="jdbc:postgresql://127.0.0.1:$pg_port/flood" POSTGRES_USER=flood POSTGRES_PASSWORD=flood \
        java "-Xms$APP_HEAP" "-Xmx$APP_HEAP" -jar "$jar" "--server.port=$app_port" \
        --management.endpoint.health.probes.enabled=true "$@" >"$OUT/app-$name.log" 2>&1 &
    app_pid=$!
    local deadline=$((SECONDS + 300))
    until app_ready; do
        if ! kill -0 "$app_pid" 2>/dev/null; then
            wait "$app_pid" 2>/dev/null || true
            app_pid=
            return 1
        fi
        if [ $SECONDS -ge $deadline ]; then
            log "The application ($name) was not ready within 300 s: $OUT/app-$name.log"
            exit 1
        fi
        sleep 0.5
    done
}

# warm_up_app: the path every case shares (Tomcat, Hibernate, the driver) compiled before the first case is measured.
warm_up_app() {
    if [ "$WARMUP" -gt 0 ]; then
        wrk -t"$THREADS" -c"$CONNECTIONS" -d"${WARMUP}s" -s "$lua" "http://127.0.0.1:$app_port/flood/unguarded/" \
            -- existing "$rows" 3 >/dev/null
    fi
}

# --- measuring -----------------------------------------------------------------------------------------------
echo "app,case,load,duration_s,requests,requests_per_s,p50_ms,p99_ms,found_share,db_statements,db_statements_per_request,db_cpu_s,db_cpu_us_per_request,socket_errors,guard_rejected,guard_passed,guard_skipped,redis_commands" >"$csv"
# Commands Redis has processed (INFO commandstats, every command but INFO itself); empty while no Redis runs.
redis_port=
redis_commands() {
    [ -n "$redis_port" ] || return 0
    redis-cli -p "$redis_port" info commandstats \
        | awk -F'[:=,]' '/^cmdstat_/ && $1 != "cmdstat_info" { total += $3 } END { printf "%d\n", total }'
}
field() { sed -n "s/.*[[:space:]]$1=\([0-9.]*\).*/\1/p" <<<"$2"; }
# The users filter's rejected, passed and skipped counters (skipped: calls it did not decide, e.g. a Redis
# check that timed out, which then reach the database).
guard_counters() {
    curl -fs "http://127.0.0.1:$app_port/actuator/bloomfilters/users" \
        | sed -n 's/.*"rejected":\([0-9]*\),"passed":\([0-9]*\),"skipped":\([0-9]*\).*/\1 \2 \3/p' | head -n 1
}

# run_case APP CASE PATH LOAD: one warm-up (not measured), then DURATION seconds measured.
run_case() {
    local app_name=$1
    shift
    local case_name=$1 path=$2 load=$3
    local url="http://127.0.0.1:$app_port$path/" ids=existing
    [ "$load" = flood ] && ids=absent
    log "  $case_name, $load: ${WARMUP} s warm-up, ${DURATION} s measured"
    if [ "$WARMUP" -gt 0 ]; then
        wrk -t"$THREADS" -c"$CONNECTIONS" -d"${WARMUP}s" -s "$lua" "$url" -- "$ids" "$rows" 7 >/dev/null
    fi
    psql_as flood "SELECT pg_stat_statements_reset()" >/dev/null
    local ticks_before ticks_after statements result guard_before guard_after redis_before redis_after
    guard_before=$(guard_counters)
    ticks_before=$(pg_cpu_ticks)
    redis_before=$(redis_commands)
    result=$(wrk -t"$THREADS" -c"$CONNECTIONS" -d"${DURATION}s" --latency -s "$lua" "$url" -- "$ids" "$rows" 42 \
        | tee -a "$OUT/wrk-$stamp.log" | grep '^FLOOD_RESULT' || true)
    redis_after=$(redis_commands)
    ticks_after=$(pg_cpu_ticks)
    statements=$(app_statements)
    guard_after=$(guard_counters)
    if [ -z "$result" ]; then
        log "  FAILED: wrk reported no result for $case_name, $load (its output: $OUT/wrk-$stamp.log)"
        echo "$app_name,$case_name,failed,,,,,,,,,,,,,,," >>"$csv"
        return 0
    fi
    awk -v app="$app_name" -v c="$case_name" -v l="$load" -v n="$(field requests "$result")" -v s="$(field seconds "$result")" \
        -v p50="$(field p50_us "$result")" -v p99="$(field p99_us "$result")" -v e="$(field http_errors "$result")" \
        -v se="$(field socket_errors "$result")" -v st="$statements" -v t=$((ticks_after - ticks_before)) \
        -v hz="$clock_ticks" -v gb="$guard_before" -v ga="$guard_after" -v rb="$redis_before" -v ra="$redis_after" 'BEGIN {
            cpu = t / hz
            split(gb, b, " "); split(ga, a, " ")
            printf "%s,%s,%s,%.1f,%d,%.1f,%.2f,%.2f,%.4f,%d,%.5f,%.2f,%.1f,%d,%d,%d,%d,%s\n", app, c, l, s, n, n / s, p50 / 1000,
                p99 / 1000, (n - e) / n, st, st / n, cpu, cpu * 1e6 / n, se, a[1] - b[1], a[2] - b[2], a[3] - b[3],
                (rb == "") ? "" : ra - rb }' >>"$csv"
    if [ "$load" = ordinary ] && [ "$path" != /flood/nothing ] && [ "$(field http_errors "$result")" != 0 ]; then
        log "  WARNING: $case_name answered 404 for existing ids ($(field http_errors "$result") times)"
    fi
}

# run_palindrome APP CASE PATH [CASE PATH ...]: for each load, the cases in order and then in reverse, so that each
# is measured twice, symmetrically around the middle of the sequence.
run_palindrome() {
    local app_name=$1 load i
    shift
    local -a pairs=("$@")
    for load in flood ordinary; do
        for ((i = 0; i < ${#pairs[@]}; i += 2)); do run_case "$app_name" "${pairs[i]}" "${pairs[i + 1]}" "$load"; done
        for ((i = ${#pairs[@]} - 2; i >= 0; i -= 2)); do run_case "$app_name" "${pairs[i]}" "${pairs[i + 1]}" "$load"; done
    done
}

error_rate() {
    curl -fs "http://127.0.0.1:$app_port/actuator/bloomfilters/users" | sed -n 's/.*"configuredErrorRate":\([0-9.eE-]*\).*/\1/p' | head -n 1
}

wanted() { [[ " $APPS " == *" $1 "* ]]; }

log "Sample application, filters local"
start_app local --spring.profiles.active=postgres \
    || { log "The application did not start: $OUT/app-local.log"; exit 1; }
epsilon=$(error_rate)
# The first start seeded the tables: every case reads them frozen (no hint bits left to set on first read) and
# from shared buffers, not only the cases that happen to run later.
psql_as flood "VACUUM (FREEZE, ANALYZE) users"
psql_as flood "CREATE EXTENSION pg_prewarm"
psql_as flood "SELECT pg_prewarm('users'), pg_prewarm('users_pkey')" >/dev/null
warm_up_app
if wanted local; then
    run_palindrome local unguarded /flood/unguarded "null caching" /flood/cached "guard local" /flood/guarded \
        "no lookup (web stack alone)" /flood/nothing
fi
stop_app

port_for_redis=$(free_port)
log "redis-server on 127.0.0.1:$port_for_redis"
redis-server --port "$port_for_redis" --bind 127.0.0.1 --save "" --appendonly no >"$work/redis.log" 2>&1 &
redis_pid=$!
until [ "$(redis-cli -p "$port_for_redis" ping 2>/dev/null)" = PONG ]; do
    kill -0 "$redis_pid" 2>/dev/null || { cat "$work/redis.log" >&2; exit 1; }
    sleep 0.2
done
redis_port=$port_for_redis
export REDIS_HOST=127.0.0.1 REDIS_PORT=$redis_port

# redis_app NAME CASE [PROPERTY...]: one application on the Redis filters; one that does not start is reported and
# skipped, so that the others are still measured.
redis_app() {
    local name=$1 case_name=$2
    shift 2
    wanted "$name" || return 0
    log "Sample application, filters in Redis: $case_name"
    redis-cli -p "$redis_port" flushall >/dev/null # each application builds its filter afresh
    if start_app "$name" --spring.profiles.active=postgres,redis "$@"; then
        warm_up_app
        run_palindrome "$name" unguarded /flood/unguarded "$case_name" /flood/guarded
        stop_app
    else
        reason=$(grep -m 1 -E 'ERROR|Invalid value' "$OUT/app-$name.log" | cut -c 1-200 || true)
        log "  skipped: the application did not start (${reason:-see $OUT/app-$name.log})"
        echo "$name,$case_name,skipped,,,,,,,,,,,,,,," >>"$csv"
    fi
}
near_copy=--bloom-guard.filters.users.redis.near-copy
redis_app redis "guard redis"
redis_app redis-near-copy "guard redis + near copy" "$near_copy=on"
redis_app redis-ordered "guard redis + ordered near copy" "$near_copy=ordered"
redis_app redis-leased "guard redis + leased near copy" "$near_copy=leased"

# --- report --------------------------------------------------------------------------------------------------
# Columns: 1 app, 2 case, 3 load, 4 duration_s, 5 requests, 6 requests_per_s, 7 p50_ms, 8 p99_ms, 9 found_share,
# 10 db_statements, 11 db_statements_per_request, 12 db_cpu_s, 13 db_cpu_us_per_request, 14 socket_errors,
# 15 guard_rejected, 16 guard_passed, 17 guard_skipped. A case's runs are added up (p50 and p99: their mean).
awk -F, -v eps="$epsilon" -v duration="$DURATION" -v threads="$THREADS" -v connections="$CONNECTIONS" '
    NR == 1 { next }
    $3 == "skipped" { skipped[++ns] = $2; next }
    $3 == "failed" { failed[++nf] = $1 ", " $2; next }
    {
        k = $1 SUBSEP $2 SUBSEP $3
        if (!(k in runs)) { order[++n] = k }
        runs[k]++; secs[k] += $4; reqs[k] += $5; p50[k] += $7; p99[k] += $8; found[k] += $9 * $5
        stmts[k] += $10; cpu[k] += $12; skip[k] += $17; redis[k] = ($18 == "") ? "" : redis[k] + $18
        if ($2 ~ /^guard/) { rate[$2, $3] = reqs[k] / secs[k]; tail[$2, $3] = p99[k] / runs[k] }
    }
    function ratio_line(app, c, load, target,   base, r) {
        base = app SUBSEP "unguarded" SUBSEP load
        if (!(base in reqs) || reqs[base] == 0) return
        r = (reqs[app SUBSEP c SUBSEP load] / secs[app SUBSEP c SUBSEP load]) / (reqs[base] / secs[base])
        printf "- %s, %s: %.2f× the unguarded requests/s of its application (target ≥ %s×: %s)\n", load, c, r, target,
            (r >= target) ? "met" : "**not met**"
    }
    END {
        printf "Sample application on PostgreSQL (%d users), wrk %d threads / %d connections, 2 × %d s per case and load; ", 1000000, threads, connections, duration
        printf "filters: ε = %s, sized for 10⁶ keys.\n\n", eps
        print "| application | case | load | requests/s | p50 ms | p99 ms | found | DB statements / request | DB CPU, % of a core | DB CPU µs / request | undecided by the guard | Redis commands / request |"
        print "|---|---|---|---|---|---|---|---|---|---|---|---|"
        for (i = 1; i <= n; i++) {
            k = order[i]; split(k, f, SUBSEP)
            undecided = (f[2] ~ /^guard/) ? sprintf("%.2f%%", skip[k] * 100 / reqs[k]) : "—"
            commands = (redis[k] == "") ? "—" : sprintf("%.4f", redis[k] / reqs[k])
            printf "| %s | %s | %s | %.0f | %.2f | %.2f | %.1f%% | %.4f | %.0f | %.1f | %s | %s |\n", f[1], f[2], f[3],
                reqs[k] / secs[k], p50[k] / runs[k], p99[k] / runs[k], found[k] * 100 / reqs[k], stmts[k] / reqs[k],
                cpu[k] * 100 / secs[k], cpu[k] * 1e6 / reqs[k], undecided, commands
        }
        for (i = 1; i <= ns; i++) printf "| | %s | skipped: the application did not start | | | | | | | | | |\n", skipped[i]
        for (i = 1; i <= nf; i++) printf "| | %s | failed: wrk reported no result | | | | | | | | | |\n", failed[i]
        print ""
        for (i = 1; i <= n; i++) {
            split(order[i], f, SUBSEP)
            if (f[2] !~ /^guard/ || f[3] != "flood") continue
            ratio_line(f[1], f[2], "flood", 5)
            s = stmts[order[i]] / reqs[order[i]]
            printf "- flood, %s: %.4f DB statements per request (target ≤ 1.3·ε = %.4f: %s)\n", f[2], s, 1.3 * eps,
                (s <= 1.3 * eps) ? "met" : "**not met**"
        }
        for (i = 1; i <= n; i++) {
            split(order[i], f, SUBSEP)
            if (f[2] ~ /^guard/ && f[3] == "ordinary") ratio_line(f[1], f[2], "ordinary", 0.95)
        }
        local_rate = rate["guard local", "flood"]
        for (c in rate) {
            split(c, g, SUBSEP)
            if (g[1] !~ /^guard redis/ || g[2] != "flood" || local_rate == 0) continue
            printf "- flood, %s: %.2f× the guard local'"'"'s requests/s\n", g[1], rate[c] / local_rate
        }
        o = "guard redis + ordered near copy" SUBSEP "flood"; r = "guard redis" SUBSEP "flood"
        if ((o in tail) && (r in tail) && tail[r] > 0)
            printf "- flood, p99 with an ordered near copy: %.2f× the p99 of one GETRANGE per key (guard redis)\n",
                tail[o] / tail[r]
    }' "$csv" | tee "$md"

# A bar chart of the table's requests/s, one bar per application and case, flood and ordinary traffic side by side.
svg=$OUT/flood-$stamp.svg
awk -F, '
    NR == 1 || $3 == "skipped" || $3 == "failed" { next }
    {
        k = $1 " · " $2
        if (!(k in seen)) { seen[k] = 1; label[++n] = k }
        reqs[k, $3] += $5; secs[k, $3] += $4
    }
    END {
        for (i = 1; i <= n; i++) for (l = 1; l <= 2; l++) {
            load = (l == 1) ? "flood" : "ordinary"
            rate[i, l] = (secs[label[i], load] > 0) ? reqs[label[i], load] / secs[label[i], load] : 0
            if (rate[i, l] > top) top = rate[i, l]
        }
        left = 330; width = 420; row = 34; height = 70 + n * row
        printf "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\" font-size=\"12\">\n", left + width + 90, height
        printf "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
        printf "<text x=\"10\" y=\"20\" font-size=\"14\">Requests/s by application and case (flood.sh)</text>\n"
        printf "<rect x=\"%d\" y=\"30\" width=\"12\" height=\"12\" fill=\"#c0392b\"/><text x=\"%d\" y=\"41\">flood of absent ids</text>\n", left, left + 16
        printf "<rect x=\"%d\" y=\"30\" width=\"12\" height=\"12\" fill=\"#2980b9\"/><text x=\"%d\" y=\"41\">existing ids</text>\n", left + 170, left + 186
        for (i = 1; i <= n; i++) {
            y = 55 + (i - 1) * row
            printf "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>\n", left - 8, y + 18, label[i]
            for (l = 1; l <= 2; l++) {
                w = (top > 0) ? rate[i, l] * width / top : 0
                printf "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"13\" fill=\"%s\"/>", left, y + (l - 1) * 14, w, (l == 1) ? "#c0392b" : "#2980b9"
                printf "<text x=\"%.1f\" y=\"%d\">%.0f</text>\n", left + w + 4, y + (l - 1) * 14 + 11, rate[i, l]
            }
        }
        print "</svg>"
    }' "$csv" >"$svg"

log ""
log "Written: $md, $csv, $svg (wrk output: $OUT/wrk-$stamp.log, application logs: $OUT/app-*.log)"
