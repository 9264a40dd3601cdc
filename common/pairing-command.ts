// The command a person is told to run on the Gateway host to approve this device. The request id
// comes from the Gateway: it goes into the command only when it cannot carry shell syntax, so a
// rogue Gateway cannot hand the person `x; curl … | sh` to paste into a terminal.
const SAFE_REQUEST_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

export function isSafeRequestId(requestId: string): boolean {
  return SAFE_REQUEST_ID.test(requestId);
}

/** `openclaw devices approve <id>`, or null when the id is not one a shell would read as one word. */
export function approveCommand(requestId: string): string | null {
  return isSafeRequestId(requestId) ? `openclaw devices approve ${requestId}` : null;
}
