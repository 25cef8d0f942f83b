// Evaluated right after resources/testharness.js (see prefix.js).
add_completion_callback(function (tests, status) {
  __wptSettle({
    harness: ['OK', 'ERROR', 'TIMEOUT', 'PRECONDITION_FAILED'][status.status] || String(status.status),
    message: status.message || null,
    tests: tests.map(function (t) {
      return { name: t.name, status: ['PASS', 'FAIL', 'TIMEOUT', 'NOTRUN', 'PRECONDITION_FAILED'][t.status] || String(t.status), message: t.message || null };
    }),
  });
});
