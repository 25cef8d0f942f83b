// Evaluated right after resources/testharness.js (see prefix.js). Each
// subtest's result is kept as it finishes, so that a file that never
// completes still reports the subtests that did (WPT's own runner keeps
// them too: the file is TIMEOUT, the rest count as failed).
function __wptShape(t) {
  return { name: t.name, status: ['PASS', 'FAIL', 'TIMEOUT', 'NOTRUN', 'PRECONDITION_FAILED'][t.status] || String(t.status), message: t.message || null };
}
var __wptDone = [];
add_result_callback(function (t) { __wptDone.push(__wptShape(t)); });
globalThis.__wptPartial = function () { return __wptDone.slice(); };
add_completion_callback(function (tests, status) {
  __wptSettle({
    harness: ['OK', 'ERROR', 'TIMEOUT', 'PRECONDITION_FAILED'][status.status] || String(status.status),
    message: status.message || null,
    tests: tests.map(__wptShape),
  });
});
