"""The step-time cost model (paper section 3.3): prefill, decode and KV reload times, profiles and fitting."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class CostModel:
    """Seconds per unit of work on one engine; n = prompt tokens, m = decoded tokens.

    prefill of n tokens: a1*n^2 + a2*n; decoding one token at context c: g1*c + g2;
    reloading k offloaded tokens of KV: beta*k.
    """

    a1: float
    """Quadratic prefill coefficient (attention), s/token^2."""
    a2: float
    """Linear prefill coefficient (feed-forward), s/token."""
    g1: float
    """Per-context-token cost of decoding one token (attention over the KV), s/token."""
    g2: float
    """Constant cost of decoding one token (feed-forward), s."""
    beta: float
    """Cost of reloading one token's KV from host memory, s/token."""

    def __post_init__(self) -> None:
        for name in ("a1", "a2", "g1", "g2", "beta"):
            value = getattr(self, name)
            if not (value >= 0 and math.isfinite(value)):
                raise ValueError(f"cost model coefficient {name} must be finite and >= 0, got {value}")

    def prefill_s(self, tokens: int) -> float:
        """Time to prefill `tokens` tokens from scratch."""
        return self.a1 * tokens * tokens + self.a2 * tokens

    def extend_s(self, cached_tokens: int, total_tokens: int) -> float:
        """Time to prefill tokens `cached_tokens..total_tokens` over a cached prefix (chunked prefill, recompute)."""
        if total_tokens <= cached_tokens:
            return 0.0
        return self.prefill_s(total_tokens) - self.prefill_s(cached_tokens)

    def decode_token_s(self, context_tokens: int) -> float:
        """Time to decode one token with `context_tokens` tokens already in the KV cache."""
        return self.g1 * context_tokens + self.g2

    def decode_s(self, context_tokens: int, new_tokens: int) -> float:
        """Time to decode `new_tokens` tokens after `context_tokens` (paper eq. 4)."""
        m = new_tokens
        return self.g1 * (m * m / 2 + context_tokens * m + m / 2) + self.g2 * m

    def reload_s(self, tokens: int) -> float:
        """Time to bring `tokens` tokens of offloaded KV back to the device."""
        return self.beta * tokens

    def should_offload_prompt(self, prompt_tokens: int) -> bool:
        """Paper eq. 3: keep (offload) n tokens of prefill KV iff reloading beats recomputing, beta < a1*n + a2."""
        return prompt_tokens > 0 and self.beta < self.a1 * prompt_tokens + self.a2

    def decoded_recovery_s(self, prompt_tokens: int, decoded_tokens: int, saved_tokens: int) -> float:
        """Paper eq. 5: time to recover m' decoded tokens' KV when `saved_tokens` of them were offloaded."""
        redo = decoded_tokens - saved_tokens
        return self.reload_s(saved_tokens) + self.decode_s(prompt_tokens, redo)

    def decoded_tokens_to_save(self, prompt_tokens: int, decoded_tokens: int) -> int:
        """How many of m' decoded tokens' KV to offload rather than recompute: the minimiser of eq. 5 on [0, m'].

        Eq. 5 is convex in the saved count s, with its stationary point at
        s = m' + n + 1/2 - (beta - g2) / g1. The paper's printed eq. 6 is kept as
        `paper_eq6_tokens_to_save`; see docs/scheduling.md for why the two differ.
        """
        if decoded_tokens <= 0:
            return 0
        if self.g1 == 0:
            # Linear cost: save everything iff reloading a token is cheaper than decoding it again.
            return decoded_tokens if self.beta < self.g2 else 0
        stationary = decoded_tokens + prompt_tokens + 0.5 - (self.beta - self.g2) / self.g1
        best = min(decoded_tokens, max(0, math.floor(stationary)))
        # The integer optimum is the floor or the ceiling of the stationary point.
        candidates = {best, min(decoded_tokens, best + 1)}
        return min(candidates, key=lambda s: (self.decoded_recovery_s(prompt_tokens, decoded_tokens, s), -s))

    def paper_eq6_tokens_to_save(self, prompt_tokens: int, decoded_tokens: int) -> int:
        """Paper eq. 6 as printed, clamped to [0, m']: max(0, (beta - g1*n - (g1 + 2*g2)/2) / (2*g1))."""
        if self.g1 == 0 or decoded_tokens <= 0:
            return 0
        raw = (self.beta - self.g1 * prompt_tokens - (self.g1 + 2 * self.g2) / 2) / (2 * self.g1)
        return min(decoded_tokens, max(0, math.floor(raw)))


def estimate_remaining_s(
    cost_model: CostModel,
    sequence_tokens: int,
    remaining_output_tokens: int,
    cached_tokens: int = 0,
    offloaded_tokens: int = 0,
) -> float:
    """The one estimate of a request's remaining engine time, used by every scheduler and the app's pipeline.

    `sequence_tokens`: prompt plus tokens generated so far; `remaining_output_tokens`: the predicted decode still to
    go; `cached_tokens`: of the sequence, tokens whose KV exists (on the device or offloaded); `offloaded_tokens`: of
    those, tokens whose KV must be reloaded first. A request not started yet: `estimate_remaining_s(cost, prompt,
    predicted)` = prefill of the prompt + decode of the predicted answer.
    """
    return (
        cost_model.reload_s(offloaded_tokens)
        + cost_model.extend_s(cached_tokens, sequence_tokens)
        + cost_model.decode_s(sequence_tokens, max(0, remaining_output_tokens))
    )


CPU_DEFAULT_PROFILE = "cpu-default"
"""The profile a CPU engine starts from when none is measured or named: ~0.1 ms a prompt token, ~8 ms a decode step."""

PROFILES: dict[str, CostModel] = {
    CPU_DEFAULT_PROFILE: CostModel(a1=0.0, a2=1e-4, g1=1e-7, g2=8e-3, beta=1e-4),
    # Paper Appendix B and the authors' simulator; the paper prints a1 = 1.466e-2 for A100/4B, a typo for 1.466e-9.
    "a100-qwen1.5-4b": CostModel(a1=1.466e-9, a2=1.052e-4, g1=5.913e-9, g2=1.196e-2, beta=1e-4),
    "a100-qwen1.5-7b": CostModel(a1=5.135e-7, a2=1.481e-4, g1=1.349e-8, g2=1.330e-2, beta=1e-4),
    "a5000-qwen1.5-7b": CostModel(a1=1.859e-9, a2=2.175e-4, g1=2.117e-6, g2=2.727e-2, beta=3e-4),
}


def get_profile(name: str) -> CostModel:
    """The named cost profile; an unknown name is an error that lists the known ones."""
    try:
        return PROFILES[name]
    except KeyError:
        raise ValueError(f"unknown cost profile {name!r}; known profiles: {', '.join(sorted(PROFILES))}") from None


def _fit_two(xs1: Sequence[float], xs2: Sequence[float], ys: Sequence[float]) -> tuple[float, float]:
    """Least squares for y = c1*x1 + c2*x2 (no intercept), coefficients clamped at zero."""
    s11 = sum(x * x for x in xs1)
    s22 = sum(x * x for x in xs2)
    s12 = sum(x1 * x2 for x1, x2 in zip(xs1, xs2, strict=True))
    s1y = sum(x * y for x, y in zip(xs1, ys, strict=True))
    s2y = sum(x * y for x, y in zip(xs2, ys, strict=True))
    det = s11 * s22 - s12 * s12
    if abs(det) <= 1e-12 * max(s11 * s22, 1e-300):
        # Degenerate design (one distinct size): attribute everything to the second (linear/constant) term.
        return 0.0, (s2y / s22 if s22 else 0.0)
    c1 = (s1y * s22 - s2y * s12) / det
    c2 = (s2y * s11 - s1y * s12) / det
    if c1 < 0:
        return 0.0, max(0.0, s2y / s22)
    if c2 < 0:
        return max(0.0, s1y / s11), 0.0
    return c1, c2


def fit(
    prefill_samples: Sequence[tuple[int, float]],
    decode_samples: Sequence[tuple[int, float]],
    reload_samples: Sequence[tuple[int, float]] = (),
    default_beta: float = 1e-4,
) -> CostModel:
    """Fit a cost model from measured samples by least squares.

    prefill_samples: (prompt tokens, seconds for the prefill); decode_samples: (context tokens, seconds
    for one decoded token); reload_samples: (tokens, seconds to reload their KV). Without reload samples
    (an engine that cannot offload) beta is `default_beta`.
    """
    if len(prefill_samples) < 2 or len(decode_samples) < 2:
        raise ValueError("fitting needs at least two prefill samples and two decode samples")
    ns = [float(n) for n, _ in prefill_samples]
    a1, a2 = _fit_two([n * n for n in ns], ns, [s for _, s in prefill_samples])
    contexts = [float(c) for c, _ in decode_samples]
    g1, g2 = _fit_two(contexts, [1.0] * len(contexts), [s for _, s in decode_samples])
    if reload_samples:
        tokens = [float(k) for k, _ in reload_samples]
        beta = max(
            0.0, sum(k * s for k, (_, s) in zip(tokens, reload_samples, strict=True)) / sum(k * k for k in tokens)
        )
    else:
        beta = default_beta
    return CostModel(a1=a1, a2=a2, g1=g1, g2=g2, beta=beta)
