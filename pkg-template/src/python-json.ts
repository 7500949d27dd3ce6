/**
 * JSON text as the backend writes a muxws payload: the server decodes a payload and encodes it again
 * with Python's `json.dumps` (`payload_to_body` in `fastapi_viewsets/mux_ws/asgi.py`), and its
 * idempotency record fingerprints those bytes. A REST body written so is the same request under the
 * same key (docs/transports.md).
 */

/**
 * `text` (`JSON.stringify`'s) as Python's `json.dumps` writes the value it holds: `", "` and `": "`
 * separators, every character from U+007F up escaped as `\uXXXX`, and a number Python reads as a
 * float (one with `.` or `e`) as Python's `repr` writes it. Nothing else differs: both escape the
 * same control characters, neither escapes `/`, and the keys keep their order. One pass of tokens,
 * none longer than a number or an escape (a regular expression that matched a whole string would
 * recurse over a long one), so the cost is linear in `text` and a 10 MB body is fine.
 */
export function pythonJson(text: string): string {
  let inString = false;
  return text.replace(/\\.|"|[,:]|-?\d[\d.eE+-]*|[\x7f-\uffff]/g, (token) =>
    token === '"'
      ? ((inString = !inString), token)
      : inString
        ? token > '~'
          ? `\\u${token.charCodeAt(0).toString(16).padStart(4, '0')}`
          : token
        : token === ',' || token === ':'
          ? `${token} `
          : /[.eE]/.test(token)
            ? pythonFloat(+token)
            : token,
  );
}

/**
 * A double as Python's `repr` writes it: the shortest digits that read back as it (the digits
 * `toExponential()` gives too), in exponent form (two exponent digits at least) when its decimal
 * exponent is below -4 or 16 and up, else positional with at least one digit after the point
 * (JavaScript's `String` is positional over that whole range).
 */
function pythonFloat(value: number): string {
  const [digits, exponent] = value.toExponential().split('e') as [string, string];
  const power = +exponent;
  if (power < -4 || power > 15) return `${digits}e${exponent[0]}${exponent.slice(1).padStart(2, '0')}`;
  const text = String(value);
  return text.includes('.') ? text : `${text}.0`;
}
