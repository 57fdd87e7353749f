"""Output error of int8 query quantization per 64-dim group (today) against per row (the
row-scaled Q.K experiment), on attention over an int8 K cache, with and without an outlier
query dimension and the Hadamard rotation of the rotated formats. numpy; no GPU.
    python3 rs_err.py
"""
import numpy as np
rng = np.random.default_rng(1)
D, N = 256, 8192
def had(n):
    H = np.array([[1.0]])
    while H.shape[0] < n: H = np.block([[H, H], [H, -H]])
    return H / np.sqrt(n)
H = had(D)
def q8(x, group):
    x = x.reshape(-1, group); s = np.abs(x).max(1, keepdims=True) / 127
    s[s == 0] = 1
    return (np.rint(x / s) * s).reshape(-1)
def attn(q, K, V):
    s = K @ q / 16.0
    p = np.exp(s - s.max()); return p @ V / p.sum()
def trial(outlier, rot, trials=20):
    e64, e256 = [], []
    for _ in range(trials):
        K = rng.standard_normal((N, D)); V = rng.standard_normal((N, D))
        q = rng.standard_normal(D)
        if outlier: q[7] *= outlier
        # a few keys aligned with q, so attention is peaked somewhat
        K[:32] += 0.5 * q / np.linalg.norm(q) * np.sqrt(D)
        if rot: q = H @ q; K = K @ H.T
        Kq = np.vstack([q8(k, 64) for k in K[:N]])  # K as the cache holds it (int8, 64-groups)
        ref = attn(q, Kq, V)
        for g, e in ((64, e64), (256, e256)):
            o = attn(q8(q, g), Kq, V)
            e.append(np.linalg.norm(o - ref) / np.linalg.norm(ref))
    return np.median(e64), np.median(e256), np.max(e64), np.max(e256)
for rot in (False, True):
    for out in (0, 5, 20, 50):
        m64, m256, x64, x256 = trial(out, rot)
        print(f"rot={rot!s:5} outlier x{out:>2}: rel L2 of Q quantization, median (max) per 64-group {m64:.2e} ({x64:.2e})  per row {m256:.2e} ({x256:.2e})")
