// Independent reader of nsysjax-timeline's output, for tests/t77-timeline.sh.
//   node check.js json FILE     Chrome Trace Event JSON (JSON.parse)
//   node check.js proto FILE    the text of `protoc --decode=perfetto.protos.Trace`
// Checks that the slices of every track nest or follow each other (and, for
// Perfetto, that every event's track was declared before it, that BEGIN/END
// pair up per track in timestamp order, that no field is unknown to the
// .proto) and prints, one per line:
//   S pid tid cat name ts_ns dur_ns     each slice
//   T pid tid name                      each thread track
//   P pid name                          each process track
//   F id n first last                   each flow: its slices, first/last phase
// Exit 1 with a message on the first violation.
'use strict';
const fs = require('fs');
const [mode, file] = process.argv.slice(2);
const text = fs.readFileSync(file, 'utf8');
const out = [];
function die(msg) { process.stderr.write('check.js: ' + msg + '\n'); process.exit(1); }
// µs with three decimals -> integer ns, from the number's own text.
function ns(v) { return Math.round(v * 1000); }

// Nesting on one track: slices sorted by start (longer first); each must
// end within the innermost open slice that has not ended before it starts.
function checkNesting(key, slices) {
  slices.sort((a, b) => a.ts - b.ts || b.dur - a.dur || a.i - b.i);
  const stack = [];
  for (const s of slices) {
    while (stack.length && stack[stack.length - 1].ts + stack[stack.length - 1].dur <= s.ts) stack.pop();
    const top = stack[stack.length - 1];
    if (top && s.ts + s.dur > top.ts + top.dur)
      die(`track ${key}: ${s.name} [${s.ts}, ${s.ts + s.dur}] overlaps ${top.name} [${top.ts}, ${top.ts + top.dur}] without nesting`);
    stack.push(s);
  }
}

function json() {
  let doc;
  try { doc = JSON.parse(text); } catch (e) { die('not JSON: ' + e.message); }
  if (!doc || !Array.isArray(doc.traceEvents)) die('no traceEvents array');
  const tracks = new Map(), flows = new Map(), bykey = new Map();
  doc.traceEvents.forEach((e, i) => {
    if (e.ph === 'M') {
      if (e.name === 'process_name') out.push(`P\t${e.pid}\t${e.args.name}`);
      if (e.name === 'thread_name') out.push(`T\t${e.pid}\t${e.tid}\t${e.args.name}`);
      return;
    }
    if (e.ph === 'X') {
      if (typeof e.ts !== 'number' || typeof e.dur !== 'number' || e.dur < 0) die(`event ${i}: bad ts/dur`);
      const s = { i, name: e.name, cat: e.cat, ts: ns(e.ts), dur: ns(e.dur) };
      const k = e.pid + '/' + e.tid;
      if (!tracks.has(k)) tracks.set(k, []);
      tracks.get(k).push(s);
      bykey.set(k + '@' + s.ts, s);
      out.push(`S\t${e.pid}\t${e.tid}\t${e.cat}\t${e.name}\t${s.ts}\t${s.dur}`);
      return;
    }
    if (e.ph === 's' || e.ph === 't' || e.ph === 'f') {
      // Bound to the slice that starts there on the same thread.
      if (e.bp !== 'e') die(`flow event ${i}: not bound to its enclosing slice`);
      if (!flows.has(e.id)) flows.set(e.id, []);
      flows.get(e.id).push({ ph: e.ph, ts: ns(e.ts), k: e.pid + '/' + e.tid });
      return;
    }
    die(`event ${i}: unexpected phase ${e.ph}`);
  });
  for (const [k, v] of tracks) checkNesting(k, v);
  for (const [id, v] of flows) {
    for (const f of v) if (!bykey.has(f.k + '@' + f.ts)) die(`flow ${id}: no slice starts at ${f.ts} on ${f.k}`);
    v.sort((a, b) => a.ts - b.ts);
    const mid = v.slice(1, -1).every(f => f.ph === 't');
    if (v.length < 2 || !mid) die(`flow ${id}: ${v.map(f => f.ph).join('')} is not s t* f`);
    out.push(`F\t${id}\t${v.length}\t${v[0].ph}\t${v[v.length - 1].ph}`);
  }
}

// The text format of protoc: "name {", "name: value", "}".
function proto() {
  const names = new Map(), cats = new Map(), tracks = new Map(), flows = new Map();
  const lines = text.split('\n');
  let pkt = null, stack = [], nslices = 0;
  const per = new Map();   // track uuid -> { open: [], last }
  const all = new Map();   // track key -> slices, for the same nesting check
  for (let ln = 0; ln < lines.length; ln++) {
    const l = lines[ln].trim();
    if (l === '') continue;
    if (/^[0-9]+[: {]/.test(l)) die(`line ${ln + 1}: a field unknown to the .proto: ${l}`);
    let m;
    if ((m = /^(\w+) \{$/.exec(l))) {
      stack.push(m[1]);
      if (stack.length === 1) pkt = { flows: [], path: {} };
      if (m[1] === 'event_names' || m[1] === 'event_categories') pkt.cur = { kind: m[1] };
      continue;
    }
    if (l === '}') {
      const what = stack.pop();
      if ((what === 'event_names' || what === 'event_categories') && pkt.cur) {
        (what === 'event_names' ? names : cats).set(pkt.cur.iid, pkt.cur.name);
        pkt.cur = null;
      }
      if (stack.length === 0) endPacket(pkt);
      continue;
    }
    if (!(m = /^(\w+): (.*)$/.exec(l))) die(`line ${ln + 1}: cannot read: ${l}`);
    const [, k, v] = m, where = stack.join('.');
    if (pkt.cur && (k === 'iid' || k === 'name')) { pkt.cur[k] = k === 'iid' ? v : JSON.parse(v); continue; }
    if (where === 'packet') pkt[k] = v;
    else if (where === 'packet.track_event') {
      if (k === 'flow_ids') pkt.flows.push(v); else if (k !== 'category_iids') pkt['te_' + k] = v;
      else pkt.cat = v;
    } else if (where === 'packet.track_descriptor') pkt['td_' + k] = v;
    else if (where === 'packet.track_descriptor.process' || where === 'packet.track_descriptor.thread') pkt['td_' + k] = v;
  }
  function endPacket(p) {
    if (p.td_uuid !== undefined) {
      if (tracks.has(p.td_uuid)) die(`track ${p.td_uuid} declared twice`);
      const t = { pid: +p.td_pid, tid: p.td_tid === undefined ? 0 : +p.td_tid };
      tracks.set(p.td_uuid, t);
      if (t.tid) out.push(`T\t${t.pid}\t${t.tid}\t${JSON.parse(p.td_thread_name)}`);
      else out.push(`P\t${t.pid}\t${JSON.parse(p.td_process_name)}`);
      return;
    }
    if (p.te_type === undefined) return;
    const tr = tracks.get(p.te_track_uuid);
    if (!tr) die(`event on track ${p.te_track_uuid} before its descriptor`);
    if (p.trusted_packet_sequence_id !== '1') die('an event outside sequence 1');
    const ts = Number(p.timestamp);
    if (!Number.isSafeInteger(ts)) die(`timestamp ${p.timestamp} beyond 2^53`);
    let st = per.get(p.te_track_uuid);
    if (!st) per.set(p.te_track_uuid, st = { open: [], last: -Infinity });
    if (ts < st.last) die(`track ${p.te_track_uuid}: timestamp ${ts} after ${st.last}`);
    st.last = ts;
    if (p.te_type === 'TYPE_SLICE_BEGIN') {
      if (p.sequence_flags === undefined || !(+p.sequence_flags & 2)) die('a BEGIN without SEQ_NEEDS_INCREMENTAL_STATE');
      const name = names.get(p.te_name_iid), cat = cats.get(p.cat);
      if (name === undefined || cat === undefined) die(`iid ${p.te_name_iid}/${p.cat} not interned before use`);
      st.open.push({ ts, name, cat });
      for (const f of p.flows) flows.set(f, (flows.get(f) || 0) + 1);
    } else if (p.te_type === 'TYPE_SLICE_END') {
      const s = st.open.pop();
      if (!s) die(`track ${p.te_track_uuid}: END without BEGIN at ${ts}`);
      s.dur = ts - s.ts;
      s.i = nslices++;
      const k = tr.pid + '/' + tr.tid;
      if (!all.has(k)) all.set(k, []);
      all.get(k).push(s);
      out.push(`S\t${tr.pid}\t${tr.tid}\t${s.cat}\t${s.name}\t${s.ts}\t${s.dur}`);
    } else die(`unexpected event type ${p.te_type}`);
  }
  for (const [u, st] of per) if (st.open.length) die(`track ${u}: ${st.open.length} slices never end`);
  for (const [k, v] of all) checkNesting(k, v);
  for (const [id, n] of flows) {
    if (n < 2) die(`flow ${id}: on one slice only`);
    out.push(`F\t${id}\t${n}\t-\t-`);
  }
}

if (mode === 'json') json(); else if (mode === 'proto') proto(); else die('usage: check.js json|proto FILE');
process.stdout.write(out.join('\n') + (out.length ? '\n' : ''));
