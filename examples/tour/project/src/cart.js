// The cart's arithmetic. Prices are whole cents, so no floating-point rounding creeps into sums.

/** The sum of price × quantity over the items. */
export function subtotal(items) {
  return items.reduce((sum, item) => sum + item.price * item.qty, 0);
}

/** The subtotal with a percentage discount (0.1 = 10 %) taken off, rounded to a cent. */
export function total(items, { discount = 0 } = {}) {
  const sub = subtotal(items);
  const off = Math.round(sub * discount);
  return sub + off;
}

// TODO: discount codes that take a fixed amount off.
