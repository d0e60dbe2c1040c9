/**
 * A corpus as a wrk script: every body in a Lua table, each wrk thread cycling through them from
 * its own offset (so threads do not send the same body at once), POSTed as JSON to the URL's
 * path; answers that are not 200 or carry a JSON-RPC error are counted, and done() prints the
 * latency percentiles and those counts as one JSON line wrk's summary is followed by.
 */
import type { WorkloadRequest } from './mixes.js';

/**
 * A Lua long string holding `text` verbatim: the lowest level of = signs, from 1 (wrk's Lua 5.1
 * refuses a "[[" inside a level-0 one), whose closing bracket the text does not contain.
 */
export function luaLongString(text: string): string {
  let level = 1;
  while (text.includes(`]${'='.repeat(level)}]`)) level++;
  const eq = '='.repeat(level);
  // A long string drops a newline right after its opening bracket: JSON bodies never start with one.
  return `[${eq}[${text}]${eq}]`;
}

/** The wrk script of `requests`. */
export function wrkScript(requests: WorkloadRequest[], mixName: string): string {
  const bodies = requests.map((r) => `  ${luaLongString(JSON.stringify(r.body))},`).join('\n');
  return `-- ethlogd workload (mix ${mixName}, ${requests.length} requests), written by ethlogd workload.
-- Run: wrk -t2 -c32 -d30s -s THIS_FILE http://HOST:PORT/v3/KEY
local bodies = {
${bodies}
}
local threads = {}
local count = 0

function setup(thread)
  thread:set("offset", count)
  count = count + 1
  table.insert(threads, thread)
end

function init(args)
  at = (offset * 7919) % #bodies
  non200 = 0
  rpcErrors = 0
end

function request()
  at = at % #bodies + 1
  return wrk.format("POST", nil, { ["Content-Type"] = "application/json" }, bodies[at])
end

function response(status, headers, body)
  if status ~= 200 then
    non200 = non200 + 1
  elseif string.find(body, '"error":{', 1, true) then
    rpcErrors = rpcErrors + 1
  end
end

function done(summary, latency, requests)
  local bad, errs = 0, 0
  for _, thread in ipairs(threads) do
    bad = bad + thread:get("non200")
    errs = errs + thread:get("rpcErrors")
  end
  local seconds = summary.duration / 1e6
  io.write(string.format(
    '{"requests":%d,"rps":%.1f,"p50Ms":%.3f,"p99Ms":%.3f,"p999Ms":%.3f,' ..
    '"non200":%d,"rpcErrors":%d,"socketErrors":%d}\\n',
    summary.requests, summary.requests / seconds, latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    latency:percentile(99.9) / 1000, bad, errs,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout))
end
`;
}
