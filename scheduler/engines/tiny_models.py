"""Tiny models built locally for tests and benchmarks: random weights, tokenizers trained on our own text.

They go through the same loading code as a real model (a directory of config, weights and tokenizer files).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

_TEXT = (
    "caller says patient has chest pain and shortness of breath since this morning he is sweating and pale "
    "she fell down the stairs and hurt her hip cannot walk no head injury breathing normally alert and talking "
    "medic to dispatch male female years old vitals heart rate blood pressure oxygen saturation temperature "
    "not breathing no pulse unresponsive choking bleeding heavily seizure stroke face drooping slurred speech "
    "summary key facts suggested resources pre arrival instructions start cpr keep the patient still stay on the line"
)
_WORDS = tuple(_TEXT.split())
TINY_LLAMA_HIDDEN = 128
"""The tiny Llama's width: 2 attention heads of 64, the smallest head vLLM's CPU attention kernel accepts."""


def _corpus(lines: int) -> list[str]:
    """Deterministic dispatch-flavoured text to train the tiny tokenizers on."""
    return [" ".join(_WORDS[(i * 7 + j * 3) % len(_WORDS)] for j in range(12 + i % 9)) for i in range(lines)]


def build_tiny_sentence_transformer(directory: Path) -> Path:
    """A sentence-transformers model directory: 2-layer, 32-wide BERT plus mean pooling."""
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.sentence_transformer.modules import Pooling, Transformer
    from tokenizers import Tokenizer, normalizers, pre_tokenizers
    from tokenizers.models import WordPiece
    from tokenizers.trainers import WordPieceTrainer
    from transformers import BertConfig, BertModel, PreTrainedTokenizerFast

    corpus = _corpus(400)
    tokenizer = Tokenizer(WordPiece(unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.BertNormalizer(lowercase=True)
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    trainer = WordPieceTrainer(vocab_size=600, special_tokens=["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"])
    tokenizer.train_from_iterator(corpus, trainer)
    fast: Any = PreTrainedTokenizerFast(  # type: ignore[no-untyped-call]
        tokenizer_object=tokenizer,
        unk_token="[UNK]",
        pad_token="[PAD]",
        cls_token="[CLS]",
        sep_token="[SEP]",
        mask_token="[MASK]",
    )
    bert_dir = directory / "bert"
    config = BertConfig(
        vocab_size=len(fast),
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=256,
    )
    bert: Any = BertModel(config)  # type: ignore[no-untyped-call]
    bert.save_pretrained(bert_dir)
    fast.save_pretrained(bert_dir)
    transformer = Transformer(str(bert_dir), max_seq_length=128)
    pooling = Pooling(transformer.get_embedding_dimension(), pooling_mode="mean")
    out = directory / "sentence-model"
    SentenceTransformer(modules=[transformer, pooling], device="cpu").save(str(out))
    return out


def _tiny_tokenizer() -> Any:
    """A byte-level BPE tokenizer trained on the dispatch-flavoured corpus."""
    from tokenizers import Tokenizer, decoders, pre_tokenizers
    from tokenizers.models import BPE
    from tokenizers.trainers import BpeTrainer
    from transformers import PreTrainedTokenizerFast

    corpus = [*_corpus(400), '{"esi_level": 3, "decision_point": "C", "rationale": "stable"}']
    tokenizer = Tokenizer(BPE(unk_token="<unk>"))
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = BpeTrainer(vocab_size=800, special_tokens=["<unk>", "<s>", "</s>", "<pad>"])
    tokenizer.train_from_iterator(corpus, trainer)
    return PreTrainedTokenizerFast(  # type: ignore[no-untyped-call]
        tokenizer_object=tokenizer, unk_token="<unk>", bos_token="<s>", eos_token="</s>", pad_token="<pad>"
    )


def build_tiny_llama(directory: Path) -> Path:
    """A causal LM directory: 2-layer, 128-wide Llama (2 heads of 64: vLLM's CPU attention takes no smaller head)
    with random weights and a byte-level BPE tokenizer."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    fast = _tiny_tokenizer()
    torch.manual_seed(0)
    config = LlamaConfig(
        vocab_size=len(fast),
        hidden_size=TINY_LLAMA_HIDDEN,
        intermediate_size=2 * TINY_LLAMA_HIDDEN,
        num_hidden_layers=2,
        num_attention_heads=TINY_LLAMA_HIDDEN // 64,
        num_key_value_heads=TINY_LLAMA_HIDDEN // 64,
        max_position_embeddings=1024,
        initializer_range=0.3,
        bos_token_id=fast.bos_token_id,
        eos_token_id=fast.eos_token_id,
        pad_token_id=fast.pad_token_id,
    )
    out = directory / "tiny-llama"
    llama: Any = LlamaForCausalLM(config)  # type: ignore[no-untyped-call]
    llama.save_pretrained(out)
    fast.save_pretrained(out)
    return out


QWEN2_5_0_5B_SHAPE: dict[str, Any] = {
    "hidden_size": 896,
    "intermediate_size": 4864,
    "num_hidden_layers": 24,
    "num_attention_heads": 14,
    "num_key_value_heads": 2,
    "vocab_size": 151936,
    "max_position_embeddings": 32768,
    "rope_theta": 1000000.0,
    "rms_norm_eps": 1e-6,
    "tie_word_embeddings": True,
    "hidden_act": "silu",
    "bos_token_id": 151643,
    "eos_token_id": 151645,
}
"""Qwen2.5-0.5B-Instruct's architecture (its config.json), the product's default model."""


def build_random_default_shape(directory: Path, dtype: str = "bfloat16") -> Path:
    """A Qwen2 directory with the default model's real shape (494M parameters) and random weights initialised
    here, saved in `dtype`, with the tiny tokenizer (benchmarks feed token ids): for measuring engines offline."""
    import torch
    from transformers import Qwen2Config, Qwen2ForCausalLM

    torch.manual_seed(0)
    config: Any = Qwen2Config(**QWEN2_5_0_5B_SHAPE)
    model: Any = Qwen2ForCausalLM(config)  # type: ignore[no-untyped-call]
    out = directory / "qwen2.5-0.5b-shape"
    model.to(getattr(torch, dtype)).save_pretrained(out)
    _tiny_tokenizer().save_pretrained(out)
    return out
