import { DefaultFailureConverter } from '@temporalio/common';

/**
 * Used when payload encryption is on (PAYLOAD_KEYS): failure messages and stack traces move into
 * an encoded payload, so an SMTP reply quoting an address or a parser error quoting a header is
 * encrypted like any other payload. Loaded by path (`failureConverterPath`) because the workflow
 * bundle and the worker's main thread each need their own instance. Failures recorded without it
 * still decode: the SDK reads `encodedAttributes` only where they exist.
 */
export const failureConverter = new DefaultFailureConverter({ encodeCommonAttributes: true });
