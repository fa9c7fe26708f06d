#!/usr/bin/env python3
"""Host emulation of kernels/spiir/spiir_filter.cu's index arithmetic, for review without a GPU.

It follows the kernel step by step in Python floats: the shifted copies of the input and the
copy each filter reads its aligned run from (asserting the alignment and that the run holds the
samples the filter needs), the filters dealt to the threads of a block in interleaved pairs,
tiles of 32 (FP32) and 16 (FP64) samples with partial last tiles, the butterfly reduce-scatter
across a warp (lane i ends with sample i), the cross-warp sum, and the history carried between
chunks of awkward sizes (an empty one included); and compares every template's output with the
direct recurrence (spec section 2), and every template's output in a bank with its output in a
bank of that template alone, bit for bit (a template uses its own warps, whatever the block has,
so that the coherent stage's second-pass batches do not change its bits: the order of every sum
is the template's alone). It checks the mapping, not the CUDA code or its rounding:
the GPU tests (tests/spiir/test_spiir_backend_cuda.cpp) do that. Keep it in step with the
kernel (spiir_block_threads, shift_copies, load_filter, reduce_scatter).

    tools/spiir_kernel_emulation.py      prints the worst difference per case, "ok" at the end
"""
import random, cmath
def shifted_size(ext_size, v): return v * ((ext_size + v - 1 + v - 1) // v * v)
def block_threads(mx):
    w = (mx + 127) // 128
    return 32 * max(1, min(8, w))
def halve(V, half):  # V[lane] = list of values
    out = []
    for lane in range(32):
        upper = (lane & half) != 0
        partner = lane ^ half
        new = list(V[lane])
        for j in range(half):
            send_p = V[partner][j] if (partner & half) else V[partner][j + half]  # partner's send
            keep = V[lane][j + half] if upper else V[lane][j]
            new[j] = keep + send_p
        out.append(new)
    return out
def reduce_scatter(V, tile):
    if tile == 16:
        V = [[V[l][j] + V[l ^ 16][j] for j in range(16)] + V[l][16:] for l in range(32)]
    else:
        V = halve(V, 16)
    for h in (8, 4, 2, 1): V = halve(V, h)
    return [V[l][0] for l in range(32)]
class Emu:
    def __init__(s, bank, tile, v):
        s.a, s.b, s.d, s.nf, s.width = bank
        s.nt = len(s.nf); s.tile = tile; s.v = v
        s.maxd = max([s.d[t][l] for t in range(s.nt) for l in range(s.nf[t])] + [0])
        s.y = [[0j] * s.width for _ in range(s.nt)]
        s.hist = [0.0] * s.maxd
        s.threads = block_threads(max(s.nf))
    def run(s, x):
        n = len(x)
        if n == 0: return []
        ext = s.hist + list(x)
        L = len(ext)
        size = shifted_size(L, s.v); stride = size // s.v
        sh = [0.0] * size
        for i in range(size):
            c, j = divmod(i, stride)
            sh[i] = ext[j - c] if (j >= c and j - c < L) else 0.0
        z = [[None] * n for _ in range(s.nt)]
        tile = s.tile
        for t in range(s.nt):
            T = block_threads(s.nf[t])  # the template's own threads (the block's others idle)
            assert T <= s.threads
            for n0 in range(0, n, tile):
                valid = min(tile, n - n0)
                first = s.maxd + n0
                acc = [[0j] * tile for _ in range(T)]
                for tid in range(T):
                    l = tid
                    while l < s.nf[t]:
                        pair = [l] + ([l + T] if l + T < s.nf[t] else [])
                        for k in pair:
                            p = first - s.d[t][k]
                            c = (s.v - p % s.v) % s.v
                            addr = c * stride + p + c
                            assert addr % s.v == 0 and stride % s.v == 0
                            y = s.y[t][k]
                            for i in range(tile):
                                if valid == tile:
                                    xi = sh[addr + i]
                                    assert xi == ext[p + i]
                                else:
                                    if i >= valid: break
                                    xi = ext[p + i]
                                y = s.a[t][k] * y + s.b[t][k] * xi
                                acc[tid][i] += y
                            s.y[t][k] = y
                        l += 2 * T
                partial = []
                for w in range(T // 32):
                    re = reduce_scatter([[acc[w * 32 + ln][j].real for j in range(tile)] for ln in range(32)], tile)
                    im = reduce_scatter([[acc[w * 32 + ln][j].imag for j in range(tile)] for ln in range(32)], tile)
                    partial.append([complex(re[ln], im[ln]) for ln in range(tile)])
                for ln in range(valid):
                    z[t][n0 + ln] = sum(partial[w][ln] for w in range(T // 32))
        s.hist = ext[L - s.maxd:] if s.maxd else []
        return z
def reference(bank, x):
    a, b, d, nf, width = bank
    out = []
    for t in range(len(nf)):
        zs = [0j] * len(x)
        for l in range(nf[t]):
            y = 0j
            for i in range(len(x)):
                xi = x[i - d[t][l]] if i - d[t][l] >= 0 else 0.0
                y = a[t][l] * y + b[t][l] * xi
                zs[i] += y
        out.append(zs)
    return out
random.seed(1)
def bank(counts, maxd):
    width = max(counts)
    a = [[cmath.rect(0.9 + 0.099 * random.random(), -3 * random.random()) for _ in range(width)] for _ in counts]
    b = [[cmath.rect(0.1 + random.random(), 6.28 * random.random()) for _ in range(width)] for _ in counts]
    d = [[int(random.random() * maxd) for _ in range(width)] for _ in counts]
    return a, b, d, counts, width
for counts, maxd, sizes, n in [([128], 40, [64], 70), ([257, 3], 60, [40], 80), ([1], 10, [1, 31, 32, 33], 150), ([31, 33, 65, 129], 90, [33, 1, 64, 0, 40], 200),
                               ([300], 150, [100], 200), ([5, 2], 300, [7, 32], 120)]:
    bk = bank(counts, maxd)
    x = [random.gauss(0, 1) for _ in range(n)]
    want = reference(bk, x)
    for tile, v in ((32, 4), (16, 2)):
        e = Emu(bk, tile, v)
        got = [[] for _ in counts]
        first = 0; c = 0
        while first < n:
            m = min(sizes[c % len(sizes)], n - first); c += 1
            z = e.run(x[first:first + m])
            for t in range(len(counts)): got[t] += z[t] if m else []
            first += m
        worst = max(abs(got[t][i] - want[t][i]) for t in range(len(counts)) for i in range(n))
        print(counts, "tile", tile, "threads", e.threads, "worst", worst)
        assert worst < 1e-9
        # Each template alone (a bank of its row, the block sized for it): the same bits.
        for t in range(len(counts)):
            one = ([bk[0][t]], [bk[1][t]], [bk[2][t]], [counts[t]], bk[4])
            e1 = Emu(one, tile, v)
            alone = []
            first = 0; c = 0
            while first < n:
                m = min(sizes[c % len(sizes)], n - first); c += 1
                z = e1.run(x[first:first + m])
                alone += z[0] if m else []
                first += m
            assert alone == got[t], (counts, t)
print("ok")
