/**
 * A body as text when it holds at most `maxBytes`; undefined (after `cancel`, which drops the rest
 * and the connection) when its declared length or what came says it holds more. Read as it comes:
 * a hostile answer costs `maxBytes`.
 */
export async function limitedText(
  body: AsyncIterable<Uint8Array>,
  declaredLength: string | null | undefined,
  maxBytes: number,
  cancel: () => Promise<unknown> | undefined,
): Promise<string | undefined> {
  if (Number(declaredLength ?? 0) > maxBytes) {
    await cancel();
    return undefined;
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.byteLength;
    if (size > maxBytes) {
      await cancel();
      return undefined;
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size).toString('utf8');
}
