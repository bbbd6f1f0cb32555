// Money as text. Integer arithmetic only: 1999 cents is "19.99", never "19.990000000000002".

/** Cents as "units.cents", e.g. formatCents(1999) === "19.99". */
export function formatCents(cents) {
  const units = Math.floor(cents / 100);
  const rest = cents % 100;
  return `${units}.${String(rest).padStart(2, '0')}`;
}
