'use strict';
// The live page: polls GET /actuator/bloomfilters once a second (and each filter's detail, for its change feed),
// derives rates from counter deltas between polls, and draws the last 60 seconds on canvases. Paths are relative,
// so the page also works under a context path.

const ENDPOINT = 'actuator/bloomfilters';
const POLL_MILLIS = 1000;
const WINDOW_MILLIS = 60_000;
// A flood is sent as this many paced batches, so the charts show a plateau instead of one spike.
const FLOOD_BATCHES = 20;
const FLOOD_BATCH_MILLIS = 500;

const cards = new Map();

const numberFormat = new Intl.NumberFormat('en-US');
const rateFormat = new Intl.NumberFormat('en-US', {maximumFractionDigits: 0});

function formatCount(value) {
    return value == null ? '–' : numberFormat.format(value);
}

function formatPercent(ratio) {
    if (ratio == null || !Number.isFinite(ratio)) {
        return '–';
    }
    const percent = ratio * 100;
    if (percent === 0) {
        return '0 %';
    }
    return (percent >= 10 ? percent.toFixed(1) : percent.toPrecision(2)) + ' %';
}

function formatMillis(millis) {
    if (millis == null) {
        return '–';
    }
    if (millis < 1000) {
        return numberFormat.format(millis) + ' ms';
    }
    const seconds = millis / 1000;
    return (Number.isInteger(seconds) ? String(seconds) : seconds.toFixed(1)) + ' s';
}

function formatRate(perSecond) {
    return perSecond == null ? '–' : rateFormat.format(perSecond) + ' /s';
}

function cssColor(name) {
    return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || '#888';
}

/** Why a request failed, in the words of the response when it has any. */
async function failureOf(response) {
    let detail = '';
    try {
        const text = await response.text();
        try {
            const body = JSON.parse(text);
            detail = body.message || body.error || text;
        } catch (notJson) {
            detail = text;
        }
    } catch (unreadable) {
        // keep the status alone
    }
    return `HTTP ${response.status}${detail ? ': ' + detail : ''}`;
}

// ---------------------------------------------------------------------------------------------------------------
// Charts

/** A y axis for values up to highest: a round step (1, 2 or 5 times a power of ten) and a top of at most 4 steps. */
function axisFor(highest) {
    const rough = highest / 4;
    const magnitude = Math.pow(10, Math.floor(Math.log10(rough)));
    const step = [1, 2, 5, 10].map(factor => factor * magnitude).find(candidate => candidate >= rough);
    return {step, top: step * Math.ceil(highest / step - 1e-9)};
}

/**
 * Draws a rolling line chart of samples ({t, ...values}) over the last WINDOW_MILLIS.
 * series: [{key, color, dashed}], format: label of a y value, floor: smallest top of the y axis.
 */
function drawChart(canvas, samples, series, format, floor) {
    const ratio = window.devicePixelRatio || 1;
    const width = canvas.clientWidth || canvas.width;
    const height = canvas.clientHeight || canvas.height;
    if (canvas.width !== Math.round(width * ratio) || canvas.height !== Math.round(height * ratio)) {
        canvas.width = Math.round(width * ratio);
        canvas.height = Math.round(height * ratio);
    }
    const context = canvas.getContext('2d');
    context.setTransform(ratio, 0, 0, ratio, 0, 0);
    context.clearRect(0, 0, width, height);

    const left = 64, right = 10, top = 10, bottom = 22;
    const plotWidth = width - left - right;
    const plotHeight = height - top - bottom;
    const now = Date.now();
    const x = t => left + plotWidth * (1 - (now - t) / WINDOW_MILLIS);

    let highest = floor;
    for (const sample of samples) {
        for (const line of series) {
            const value = sample[line.key];
            if (value != null && Number.isFinite(value)) {
                highest = Math.max(highest, value);
            }
        }
    }
    const axis = axisFor(highest);
    const yMax = axis.top;
    const y = value => top + plotHeight * (1 - value / yMax);

    context.font = '11px system-ui, sans-serif';
    context.fillStyle = cssColor('--muted');
    context.strokeStyle = cssColor('--grid');
    context.lineWidth = 1;
    context.textBaseline = 'middle';
    context.textAlign = 'right';
    for (let i = 0; i * axis.step <= yMax * (1 + 1e-9); i++) {
        const value = i * axis.step;
        const gridY = Math.round(y(value)) + 0.5;
        context.beginPath();
        context.moveTo(left, gridY);
        context.lineTo(left + plotWidth, gridY);
        context.stroke();
        context.fillText(format(value), left - 6, gridY);
    }
    context.textBaseline = 'alphabetic';
    context.textAlign = 'center';
    for (const secondsAgo of [60, 45, 30, 15, 0]) {
        context.fillText(secondsAgo === 0 ? 'now' : `-${secondsAgo} s`,
            Math.min(left + plotWidth - 10, x(now - secondsAgo * 1000)), height - 6);
    }

    context.save();
    context.beginPath();
    context.rect(left, top - 2, plotWidth, plotHeight + 4);
    context.clip();
    for (const line of series) {
        context.strokeStyle = cssColor(line.color);
        context.lineWidth = 2;
        context.setLineDash(line.dashed ? [6, 4] : []);
        context.beginPath();
        let drawing = false;
        for (const sample of samples) {
            const value = sample[line.key];
            if (value == null || !Number.isFinite(value)) {
                drawing = false;
                continue;
            }
            if (drawing) {
                context.lineTo(x(sample.t), y(value));
            } else {
                context.moveTo(x(sample.t), y(value));
                drawing = true;
            }
        }
        context.stroke();
    }
    context.restore();
    canvas.dataset.samples = String(samples.length);
}

// ---------------------------------------------------------------------------------------------------------------
// Filter cards

function field(card, name) {
    return card.element.querySelector(`[data-field="${name}"]`);
}

function show(card, name, text, value) {
    const element = field(card, name);
    element.textContent = text;
    if (value !== undefined) {
        element.dataset.value = value == null ? '' : String(value);
    }
}

function cardFor(name) {
    let card = cards.get(name);
    if (card) {
        return card;
    }
    const element = document.getElementById('filter-template').content.firstElementChild.cloneNode(true);
    element.dataset.filter = name;
    card = {name, element, samples: [], previous: null};
    element.querySelector('[data-action="rebuild"]').addEventListener('click', () => rebuild(card));
    document.getElementById('filters').appendChild(element);
    cards.set(name, card);
    return card;
}

/** The filter's change feed, from its detail: hidden for a filter without one (or whose detail could not be read). */
function showFeed(card, feed) {
    const line = field(card, 'feed');
    line.hidden = !feed;
    if (!feed) {
        return;
    }
    line.classList.toggle('behind', feed.behind);
    show(card, 'feedDescription', feed.description);
    show(card, 'feedState', feed.state, feed.state);
    show(card, 'feedLag', feed.lagMillis == null ? 'not caught up yet' : formatMillis(feed.lagMillis) + ' behind',
        feed.lagMillis);
    show(card, 'feedMaxLag', formatMillis(feed.maxLagMillis), feed.maxLagMillis);
    show(card, 'feedAdded', formatCount(feed.added) + (feed.added === 1 ? ' key' : ' keys'), feed.added);
    show(card, 'feedBehind', !feed.behind ? '' : feed.whenBehind === 'keep'
        ? '. Behind: the filter keeps rejecting, and rows written meanwhile are not found until it catches up'
        : '. Behind: lookups pass through to the database until it catches up');
}

function update(card, filter, now) {
    let rejectedRate = null;
    let passedRate = null;
    const previous = card.previous;
    if (previous && now > previous.t) {
        const seconds = (now - previous.t) / 1000;
        // A restart resets the counters; a negative delta is not a rate.
        rejectedRate = Math.max(0, filter.rejected - previous.rejected) / seconds;
        passedRate = Math.max(0, filter.passed - previous.passed) / seconds;
    }
    card.previous = {t: now, rejected: filter.rejected, passed: filter.passed};
    card.samples.push({
        t: now, rejectedRate, passedRate,
        measured: filter.measuredFalsePositiveRate, configured: filter.configuredErrorRate
    });
    while (card.samples.length && card.samples[0].t < now - WINDOW_MILLIS) {
        card.samples.shift();
    }

    show(card, 'name', card.name);
    const state = field(card, 'state');
    state.textContent = filter.state;
    state.dataset.state = filter.state;
    show(card, 'kind', `${filter.backend} · ${filter.mode}`);
    const since = filter.stateSince ? new Date(filter.stateSince) : null;
    show(card, 'since', since && !isNaN(since) ? 'since ' + since.toLocaleTimeString() : '');
    const reason = field(card, 'stateReason');
    reason.textContent = filter.stateReason || '';
    reason.hidden = !filter.stateReason;

    show(card, 'capacityRatio', formatPercent(filter.capacityRatio), filter.capacityRatio);
    field(card, 'capacityBar').style.width = Math.min(100, (filter.capacityRatio || 0) * 100) + '%';
    field(card, 'capacityBar').classList.toggle('over', filter.capacityRatio > 1);
    show(card, 'approximateElements', formatCount(filter.approximateElements), filter.approximateElements);
    show(card, 'capacity', formatCount(filter.capacity), filter.capacity);
    show(card, 'stale', filter.estimatesStale ? ' (last known: the backend cannot be read)' : '');
    show(card, 'rejectedRate', formatRate(rejectedRate), rejectedRate);
    show(card, 'rejected', formatCount(filter.rejected), filter.rejected);
    show(card, 'passedRate', formatRate(passedRate), passedRate);
    show(card, 'passed', formatCount(filter.passed), filter.passed);
    show(card, 'skipped', formatCount(filter.skipped), filter.skipped);
    show(card, 'measuredFalsePositiveRate', formatPercent(filter.measuredFalsePositiveRate),
        filter.measuredFalsePositiveRate);
    show(card, 'falsePositives', formatCount(filter.falsePositives), filter.falsePositives);
    show(card, 'configuredErrorRate', formatPercent(filter.configuredErrorRate), filter.configuredErrorRate);
    show(card, 'expectedFalsePositiveRate', formatPercent(filter.expectedFalsePositiveRate),
        filter.expectedFalsePositiveRate);
    draw(card);
}

function draw(card) {
    const rates = card.element.querySelector('[data-chart="rates"]');
    drawChart(rates, card.samples, [
        {key: 'passedRate', color: '--passed'},
        {key: 'rejectedRate', color: '--rejected'}
    ], value => rateFormat.format(value), 10);
    const latest = card.samples[card.samples.length - 1];
    rates.dataset.rejectedRate = latest && latest.rejectedRate != null ? String(latest.rejectedRate) : '';
    const fpp = card.element.querySelector('[data-chart="fpp"]');
    drawChart(fpp, card.samples, [
        {key: 'configured', color: '--configured', dashed: true},
        {key: 'measured', color: '--measured'}
    ], formatPercent, 0.001);
}

async function rebuild(card) {
    const button = card.element.querySelector('[data-action="rebuild"]');
    const status = field(card, 'rebuildStatus');
    button.disabled = true;
    status.classList.remove('error');
    status.textContent = 'Rebuilding…';
    try {
        const response = await fetch(`${ENDPOINT}/${encodeURIComponent(card.name)}`, {
            method: 'POST',
            headers: {'Content-Type': 'application/json', 'Accept': 'application/json'},
            body: JSON.stringify({action: 'rebuild'})
        });
        if (!response.ok) {
            throw new Error(await failureOf(response));
        }
        // 202: the rebuild runs in the background; its handle is polled until it has ended.
        const result = await rebuildEnded(card, await response.json());
        if (result.state === 'failed') {
            throw new Error(result.error);
        }
        status.textContent = `Rebuilt from ${formatCount(result.keys)} keys`
            + ` in ${formatCount(result.durationMillis)} ms`;
    } catch (failure) {
        status.classList.add('error');
        status.textContent = 'Cannot rebuild: ' + failure.message;
    } finally {
        button.disabled = false;
    }
}

/** Polls a rebuild the endpoint started until it is no longer running; its last state. */
async function rebuildEnded(card, rebuild) {
    while (rebuild.state === 'running') {
        await new Promise(resolve => setTimeout(resolve, 250));
        const response = await fetch(`${ENDPOINT}/${encodeURIComponent(card.name)}/rebuilds/${rebuild.id}`,
            {headers: {'Accept': 'application/json'}});
        if (!response.ok) {
            throw new Error(await failureOf(response));
        }
        rebuild = await response.json();
    }
    return rebuild;
}

// ---------------------------------------------------------------------------------------------------------------
// Polling

async function poll() {
    const status = document.getElementById('poll-status');
    let body;
    try {
        const response = await fetch(ENDPOINT, {headers: {'Accept': 'application/json'}, cache: 'no-store'});
        if (!response.ok) {
            throw new Error(await failureOf(response));
        }
        body = await response.json();
    } catch (failure) {
        status.classList.add('error');
        status.textContent = `Cannot read /actuator/bloomfilters (${failure.message}). Is the service running, with `
            + 'management.endpoints.web.exposure.include listing bloomfilters?';
        return;
    }
    const now = Date.now();
    status.classList.remove('error');
    status.textContent = `Updated ${new Date(now).toLocaleTimeString()}`;
    const filters = body.filters || {};
    const feeds = await Promise.all(Object.keys(filters).map(feedOf));
    Object.entries(filters).forEach(([name, filter], index) => {
        const card = cardFor(name);
        update(card, filter, now);
        showFeed(card, feeds[index]);
    });
    for (const [name, card] of cards) {
        if (!(name in filters)) {
            card.element.remove();
            cards.delete(name);
        }
    }
    document.body.dataset.polls = String(Number(document.body.dataset.polls || 0) + 1);
}

/** A filter's change feed (GET /actuator/bloomfilters/{name}: its feed), or null: none, or not readable now. */
async function feedOf(name) {
    try {
        const response = await fetch(`${ENDPOINT}/${encodeURIComponent(name)}`,
            {headers: {'Accept': 'application/json'}, cache: 'no-store'});
        return response.ok ? (await response.json()).feed || null : null;
    } catch (unreadable) {
        return null;
    }
}

async function pollForever() {
    const started = performance.now();
    await poll();
    setTimeout(pollForever, Math.max(0, POLL_MILLIS - (performance.now() - started)));
}

// ---------------------------------------------------------------------------------------------------------------
// Load

function sleep(millis) {
    return new Promise(resolve => setTimeout(resolve, millis));
}

async function flood(kind) {
    const total = Number(document.getElementById('flood-count').value);
    const buttons = document.querySelectorAll('.load button');
    const status = document.getElementById('flood-status');
    const what = kind === 'absent' ? 'absent' : 'existing';
    const batch = Math.max(1, Math.ceil(total / FLOOD_BATCHES));
    const sum = {lookups: 0, found: 0, empty: 0, databaseStatements: 0, rejectedByGuard: 0};
    const report = verb => `${verb} ${formatCount(sum.lookups)} of ${formatCount(total)} ${what} user ids: `
        + `${formatCount(sum.found)} found, ${formatCount(sum.empty)} empty, `
        + `${formatCount(sum.databaseStatements)} database queries, `
        + `${formatCount(sum.rejectedByGuard)} rejected by the guard`;
    buttons.forEach(button => button.disabled = true);
    status.classList.remove('error');
    try {
        while (sum.lookups < total) {
            const started = performance.now();
            const count = Math.min(batch, total - sum.lookups);
            const response = await fetch(`demo/${kind}?count=${count}`, {headers: {'Accept': 'application/json'}});
            if (!response.ok) {
                throw new Error(await failureOf(response));
            }
            const run = await response.json();
            for (const key of Object.keys(sum)) {
                sum[key] += run[key];
            }
            status.textContent = report('Looked up');
            const pause = FLOOD_BATCH_MILLIS - (performance.now() - started);
            if (sum.lookups < total && pause > 0) {
                await sleep(pause);
            }
        }
        status.textContent = report('Done:');
    } catch (failure) {
        status.classList.add('error');
        status.textContent = `Lookups stopped after ${formatCount(sum.lookups)}: ${failure.message}`;
    } finally {
        buttons.forEach(button => button.disabled = false);
    }
}

document.getElementById('flood-absent').addEventListener('click', () => flood('absent'));
document.getElementById('flood-existing').addEventListener('click', () => flood('existing'));
window.addEventListener('resize', () => cards.forEach(draw));
pollForever();
