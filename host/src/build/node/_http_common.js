// `node:_http_common`: the checks of HTTP tokens and header values that
// `node:http` makes (and Node's old internal names for them), and the
// expressions Node reads `Transfer-Encoding` and `Expect` with; the rest
// is workerd's data (node.rs).
const TOKEN = /^[\^_`a-zA-Z\-0-9!#$%&'*+.|~]+$/;
const INVALID_HEADER_CHAR = /[^\t\x20-\x7e\x80-\xff]/;

// Whether `value` is an HTTP token (a method, a header's name).
export function _checkIsHttpToken(value) {
  return typeof value === 'string' && TOKEN.test(value);
}

// Whether `value` holds a character no header value may.
export function _checkInvalidHeaderChar(value) {
  return INVALID_HEADER_CHAR.test(value);
}

export const chunkExpression = /(?:^|\W)chunked(?:$|\W)/i;
export const continueExpression = /(?:^|\W)100-continue(?:$|\W)/i;

export default { _checkIsHttpToken, _checkInvalidHeaderChar, chunkExpression, continueExpression };
