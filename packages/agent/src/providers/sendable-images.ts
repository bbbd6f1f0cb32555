/** Image types both APIs accept inline. */
const SENDABLE_IMAGES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);

/** Can this image go to the model as is? */
export function isSendableImage(mimeType: string): boolean {
  return SENDABLE_IMAGES.has(mimeType.toLowerCase());
}

/** What the model sees instead of an image it cannot be sent. */
export function unsendableImageNote(mimeType: string): string {
  return `[An image of type ${mimeType} was left out: the model accepts PNG, JPEG, GIF and WebP images.]`;
}
