// Drives an HTML report in headless Chromium over the DevTools protocol on a pipe (no
// puppeteer, no websocket): opens it, reads the cards' order, clicks a warning code, types in
// the search box, picks a status, sorts the cards each way asked, opens a URL hash, takes two
// screenshots of a preview at different times, and collects script errors and network
// requests. Prints one JSON line.
//
//   node tests/tools/report_html.mjs CHROMIUM REPORT.html '{"code":"no_tail","q":"fox","status":"warnings","preview_q":"mixamo"}'
//
// Used by tests/report_html.rs and benches/report_html.rs.
import { spawn } from 'node:child_process';
import { pathToFileURL } from 'node:url';

const [, , chromium, report, planText] = process.argv;
const plan = JSON.parse(planText || '{}');
const url = pathToFileURL(report).href;
const proc = spawn(
  chromium,
  ['--headless', '--no-sandbox', '--disable-gpu', '--remote-debugging-pipe', '--window-size=1280,1000',
    '--hide-scrollbars', '--mute-audio', '--no-first-run', 'about:blank'],
  { stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'] },
);
let stderr = '';
proc.stdio[2].on('data', (d) => { stderr += d; });
const [toChromium, fromChromium] = [proc.stdio[3], proc.stdio[4]];
const pending = new Map();
const errors = [];
const requests = [];
let next = 0;
let buffer = Buffer.alloc(0);
fromChromium.on('data', (chunk) => {
  buffer = Buffer.concat([buffer, chunk]);
  let end;
  while ((end = buffer.indexOf(0)) >= 0) {
    const message = JSON.parse(buffer.subarray(0, end).toString('utf8'));
    buffer = buffer.subarray(end + 1);
    if (message.id !== undefined && pending.has(message.id)) {
      pending.get(message.id)(message);
      pending.delete(message.id);
    } else {
      event(message);
    }
  }
});
function event(m) {
  const p = m.params || {};
  if (m.method === 'Runtime.exceptionThrown') {
    errors.push('exception: ' + JSON.stringify(p.exceptionDetails.exception?.description || p.exceptionDetails.text));
  } else if (m.method === 'Runtime.consoleAPICalled' && (p.type === 'error' || p.type === 'assert')) {
    errors.push('console.' + p.type + ': ' + p.args.map((a) => a.value ?? a.description).join(' '));
  } else if (m.method === 'Log.entryAdded' && p.entry.level === 'error') {
    errors.push('log: ' + p.entry.text + (p.entry.url ? ' (' + p.entry.url + ')' : ''));
  } else if (m.method === 'Network.requestWillBeSent') {
    requests.push(p.request.url);
  }
}
function send(method, params = {}, sessionId) {
  const id = ++next;
  const message = { id, method, params };
  if (sessionId) message.sessionId = sessionId;
  toChromium.write(JSON.stringify(message) + '\0');
  return new Promise((resolve, reject) => {
    pending.set(id, (m) => (m.error ? reject(new Error(method + ': ' + m.error.message)) : resolve(m.result)));
  });
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

let session;
async function evaluate(expression) {
  const r = await send('Runtime.evaluate', { expression, returnByValue: true, awaitPromise: true }, session);
  if (r.exceptionDetails) throw new Error('evaluate: ' + JSON.stringify(r.exceptionDetails));
  return r.result.value;
}
async function open(hash) {
  const start = Date.now();
  // Marks the page open now, to wait for the new one.
  await evaluate('window.__stale = true');
  // A new hash alone would keep the page (a same-document navigation): leave it first, so the
  // report opens afresh on the hash.
  if (hash !== undefined) await send('Page.navigate', { url: 'about:blank' }, session);
  await send('Page.navigate', { url: url + (hash || '') }, session);
  for (;;) {
    const ready = await evaluate("!window.__stale && document.readyState === 'complete' && document.documentElement.getAttribute('data-ready')");
    if (ready === '1') break;
    if (Date.now() - start > 30000) throw new Error('the report never became ready');
    await sleep(10);
  }
  return Date.now() - start;
}
const VISIBLE = "[...document.querySelectorAll('section.file')].filter(s => !s.hidden && s.getClientRects().length > 0).map(s => s.querySelector('h2').textContent)";
async function shot(rect) {
  const r = await send('Page.captureScreenshot', { format: 'png', clip: { ...rect, scale: 1 } }, session);
  return r.data;
}

async function main() {
  const { targetId } = await send('Target.createTarget', { url: 'about:blank' });
  ({ sessionId: session } = await send('Target.attachToTarget', { targetId, flatten: true }));
  for (const domain of ['Runtime', 'Log', 'Network', 'Page']) await send(domain + '.enable', {}, session);
  const out = { url };
  out.open_ms = await open();
  out.timing = await evaluate(`new Promise(r => requestAnimationFrame(() => setTimeout(() => {
    const n = performance.getEntriesByType('navigation')[0];
    r({ ready_ms: +document.documentElement.getAttribute('data-ready-ms'),
        load_ms: Math.round(n.loadEventEnd), painted_ms: Math.round(performance.now()) });
  })))`);
  out.order = await evaluate("[...document.querySelectorAll('section.file')].map(s => [s.dataset.status, s.querySelector('h2').textContent])");
  out.page_errors = await evaluate("document.documentElement.getAttribute('data-error-text') || ''");
  if (plan.code) {
    const row = `document.querySelector('#codes tr[data-code="${plan.code}"] a')`;
    out.code_click = await evaluate(`${row}.click(); ${VISIBLE}`);
    out.code_hash = await evaluate('location.hash');
    out.code_unclick = await evaluate(`${row}.click(); ${VISIBLE}`);
  }
  if (plan.q) {
    const type = (q) => `(() => { const i = document.getElementById('q'); i.value = ${JSON.stringify(q)};
      i.dispatchEvent(new Event('input', { bubbles: true })); return ${VISIBLE}; })()`;
    out.search = await evaluate(type(plan.q));
    if (plan.status) {
      out.status_search = await evaluate(`(() => { const s = document.getElementById('filter');
        s.value = ${JSON.stringify(plan.status)}; s.dispatchEvent(new Event('change')); return ${VISIBLE}; })()`);
    }
    out.cleared = await evaluate(`document.getElementById('clear').click(); ${VISIBLE}`);
  }
  if (plan.sort) {
    // Every card's path, in the order shown, for each order asked for; then opened with one in
    // the hash.
    const ORDER = "[...document.querySelectorAll('section.file')].map(s => s.querySelector('h2').textContent)";
    out.sorted = {};
    for (const by of plan.sort) {
      out.sorted[by] = await evaluate(`(() => { const s = document.getElementById('sort');
        s.value = ${JSON.stringify(by)}; s.dispatchEvent(new Event('change')); return ${ORDER}; })()`);
    }
    out.sort_url = await evaluate('location.hash');
    await open('#sort=' + encodeURIComponent(plan.sort[0]));
    out.sort_hash = await evaluate(ORDER);
  }
  if (plan.code && plan.q) {
    await open('#code=' + encodeURIComponent(plan.code) + '&q=' + encodeURIComponent(plan.q));
    out.hash = await evaluate(VISIBLE);
  }
  if (plan.preview_q) {
    await open('#q=' + encodeURIComponent(plan.preview_q));
    const rects = await evaluate(`(() => { window.scrollTo(0, 0);
      const box = (e) => { const r = e.getBoundingClientRect(); return { x: r.x, y: r.y, width: r.width, height: r.height }; };
      const c = [...document.querySelectorAll('canvas.anim')].find(c => c.getClientRects().length > 0);
      return c && { canvas: box(c), control: box(document.getElementById('summary')) }; })()`);
    out.preview = rects || null;
    if (rects) {
      await sleep(300);
      const [a, ca] = [await shot(rects.canvas), await shot(rects.control)];
      await sleep(430);
      const [b, cb] = [await shot(rects.canvas), await shot(rects.control)];
      out.preview.differ = a !== b;
      out.preview.control_same = ca === cb;
      out.preview.bytes = a.length;
    }
  }
  out.page_errors += await evaluate("document.documentElement.getAttribute('data-error-text') || ''");
  out.errors = errors;
  out.requests = requests;
  return out;
}

const timer = setTimeout(() => { console.log(JSON.stringify({ fatal: 'timed out', stderr })); proc.kill(); process.exit(2); }, 120000);
main()
  .then((out) => { console.log(JSON.stringify(out)); })
  .catch((e) => { console.log(JSON.stringify({ fatal: String(e.stack || e), stderr })); process.exitCode = 1; })
  .finally(() => { clearTimeout(timer); send('Browser.close').catch(() => {}); setTimeout(() => proc.kill(), 500).unref(); });
