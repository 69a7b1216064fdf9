"""Write the project's tiny model (.cache/tiny-model) as one GGUF file for llama.cpp, fully offline.

Run with the llama.cpp environment's interpreter, which has the `gguf` package and numpy:

    .cache/llama-venv/bin/python deploy/local_llama/build_gguf.py --model-dir .cache/tiny-model --out F.gguf

llama.cpp's own converter (convert_hf_to_gguf.py) refuses the tiny tokenizer ("BPE pre-tokenizer was not
recognized": it identifies a pre-tokenizer by hashing what a fixed text tokenizes to, and knows only
published models). The tiny tokenizer is GPT-2's byte-level BPE with GPT-2's split pattern, which llama.cpp
knows as the pre-tokenizer "gpt-2", so this writer declares that one. The weights are copied as float32;
Q and K are permuted from Hugging Face's rotate-half layout to llama.cpp's interleaved RoPE layout, as
the converter does for Llama models.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

STAMP_SUFFIX = ".stamp"
# The tiny tokenizer's ByteLevel pre-tokenizer splits with GPT-2's regex: llama.cpp's "gpt-2" pre-tokenizer.
PRE_TOKENIZER = "gpt-2"
_TENSOR_NAMES = {
    "model.embed_tokens.weight": "token_embd.weight",
    "model.norm.weight": "output_norm.weight",
    "lm_head.weight": "output.weight",
}
_LAYER_NAMES = {
    "input_layernorm.weight": "attn_norm.weight",
    "self_attn.q_proj.weight": "attn_q.weight",
    "self_attn.k_proj.weight": "attn_k.weight",
    "self_attn.v_proj.weight": "attn_v.weight",
    "self_attn.o_proj.weight": "attn_output.weight",
    "post_attention_layernorm.weight": "ffn_norm.weight",
    "mlp.gate_proj.weight": "ffn_gate.weight",
    "mlp.up_proj.weight": "ffn_up.weight",
    "mlp.down_proj.weight": "ffn_down.weight",
}


def read_safetensors(path: Path) -> dict[str, Any]:
    """Every float32 tensor of a safetensors file as a numpy array (the format: a length, a JSON header, bytes)."""
    import numpy as np

    raw = path.read_bytes()
    size = int.from_bytes(raw[:8], "little")
    header = json.loads(raw[8:8 + size])
    base = 8 + size
    tensors = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        if info["dtype"] != "F32":
            raise ValueError(f"{path}: tensor {name} is {info['dtype']}, only F32 is written")
        start, end = info["data_offsets"]
        tensors[name] = np.frombuffer(raw[base + start:base + end], dtype="<f4").reshape(info["shape"]).copy()
    return tensors


def permute(weights: Any, heads: int) -> Any:
    """Rows of a Q or K projection from rotate-half order to llama.cpp's interleaved pairs, head by head."""
    return (weights.reshape(heads, 2, weights.shape[0] // heads // 2, *weights.shape[1:])
            .swapaxes(1, 2).reshape(weights.shape))


def gguf_name(name: str) -> str:
    """llama.cpp's name for a Hugging Face Llama tensor."""
    if name in _TENSOR_NAMES:
        return _TENSOR_NAMES[name]
    prefix, _, rest = name.partition(".layers.")
    index, _, part = rest.partition(".")
    if prefix != "model" or not index.isdigit() or part not in _LAYER_NAMES:
        raise ValueError(f"unexpected tensor {name}")
    return f"blk.{index}.{_LAYER_NAMES[part]}"


def _tokenizer(model_dir: Path) -> tuple[list[str], list[int], list[str], dict[str, Any]]:
    """Tokens in id order, their llama.cpp types, the BPE merges, and the tokenizer config."""
    import gguf

    data = json.loads((model_dir / "tokenizer.json").read_text(encoding="utf-8"))
    vocab: dict[str, int] = dict(data["model"]["vocab"])
    special = {t["content"]: t["id"] for t in data.get("added_tokens", [])}
    vocab.update(special)
    tokens = [""] * len(vocab)
    for token, index in vocab.items():
        tokens[index] = token
    types = [int(gguf.TokenType.CONTROL if t in special else gguf.TokenType.NORMAL) for t in tokens]
    merges = [m if isinstance(m, str) else " ".join(m) for m in data["model"]["merges"]]
    config = json.loads((model_dir / "tokenizer_config.json").read_text(encoding="utf-8"))
    return tokens, types, merges, config


def write_gguf(model_dir: Path, out: Path) -> None:
    """Write `model_dir`'s Llama model and tokenizer to `out` (atomically: a temporary file, then a rename)."""
    import gguf

    config = json.loads((model_dir / "config.json").read_text())
    heads, kv_heads = config["num_attention_heads"], config["num_key_value_heads"]
    tokens, types, merges, tok_config = _tokenizer(model_dir)
    ids = {token: index for index, token in enumerate(tokens)}
    fd, tmp_name = tempfile.mkstemp(prefix=f".{out.name}.", dir=out.parent)
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        writer = gguf.GGUFWriter(tmp, "llama")
        writer.add_name("medhelm-local tiny model")
        writer.add_context_length(config["max_position_embeddings"])
        writer.add_embedding_length(config["hidden_size"])
        writer.add_block_count(config["num_hidden_layers"])
        writer.add_feed_forward_length(config["intermediate_size"])
        writer.add_head_count(heads)
        writer.add_head_count_kv(kv_heads)
        writer.add_key_length(config["head_dim"])
        writer.add_value_length(config["head_dim"])
        writer.add_rope_dimension_count(config["head_dim"])
        writer.add_rope_freq_base(float(config.get("rope_parameters", {}).get("rope_theta", 10000.0)))
        writer.add_layer_norm_rms_eps(config["rms_norm_eps"])
        writer.add_vocab_size(len(tokens))
        writer.add_file_type(gguf.LlamaFileType.ALL_F32)
        writer.add_tokenizer_model("gpt2")
        writer.add_tokenizer_pre(PRE_TOKENIZER)
        writer.add_token_list(tokens)
        writer.add_token_types(types)
        writer.add_token_merges(merges)
        writer.add_eos_token_id(ids[tok_config["eos_token"]])
        writer.add_pad_token_id(ids[tok_config["pad_token"]])
        writer.add_bos_token_id(config["bos_token_id"])
        writer.add_add_bos_token(False)  # ChatML models prepend no BOS token
        writer.add_chat_template(tok_config["chat_template"])
        for name, weights in read_safetensors(model_dir / "model.safetensors").items():
            if name.endswith("q_proj.weight"):
                weights = permute(weights, heads)
            elif name.endswith("k_proj.weight"):
                weights = permute(weights, kv_heads)
            writer.add_tensor(gguf_name(name), weights)
        writer.write_header_to_file()
        writer.write_kv_data_to_file()
        writer.write_tensors_to_file()
        writer.close()
        tmp.chmod(0o644)
        tmp.replace(out)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def stamp_of(model_dir: Path) -> str:
    """What the GGUF is made from: this script and the model's files (a change in either rebuilds it)."""
    digest = hashlib.sha256(Path(__file__).read_bytes())
    for name in ("config.json", "tokenizer.json", "tokenizer_config.json", "BUILD_STAMP"):
        path = model_dir / name
        digest.update(path.read_bytes() if path.is_file() else b"")
    return digest.hexdigest()


def main(argv: list[str] | None = None) -> int:
    """Write the GGUF unless one made from the same model and script is already there."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model-dir", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    stamp_file = args.out.with_name(args.out.name + STAMP_SUFFIX)
    stamp = stamp_of(args.model_dir)
    if args.out.is_file() and stamp_file.is_file() and stamp_file.read_text() == stamp:
        print(f"tiny GGUF reused: {args.out}")
        return 0
    args.out.parent.mkdir(parents=True, exist_ok=True)
    write_gguf(args.model_dir, args.out)
    stamp_file.write_text(stamp)
    print(f"tiny GGUF written: {args.out} ({args.out.stat().st_size / 1e6:.1f} MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
