// A tiny test runner: one line per test ("ok N name" or "FAIL N name: ..."), then a summary.
// Exits with code 1 when a test fails.
import { subtotal, total } from '../src/cart.js';
import { formatCents } from '../src/money.js';

let passed = 0;
let failed = 0;

function check(name, actual, expected) {
  const n = passed + failed + 1;
  if (actual === expected) {
    passed++;
    console.log(`ok ${n} ${name}`);
  } else {
    failed++;
    console.log(`FAIL ${n} ${name}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
  }
}

check('total() with a 10% discount', total([{ price: 1000, qty: 1 }], { discount: 0.1 }), 900);
check('subtotal() of two items', subtotal([{ price: 250, qty: 2 }, { price: 99, qty: 1 }]), 599);
// Every price up to 24.99 against the floating-point spelling, which is exact to two places here.
for (let cents = 0; cents < 2500; cents++) check(`formatCents(${cents})`, formatCents(cents), (cents / 100).toFixed(2));

console.log(`${passed} passed, ${failed} failed`);
process.exitCode = failed === 0 ? 0 : 1;
