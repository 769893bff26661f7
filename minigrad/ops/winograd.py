"""The fast path of conv2d for its most common case: a 3x3 kernel, stride 1, no dilation.

Why a second path: nearly all the arithmetic of a CNN is in 3x3 stride-1 convolutions,
and the plain im2col product (ops/conv.py, the reference to read first) multiplies
9 times per (input channel, output channel, output pixel). Winograd's "minimal
filtering" F(4x4, 3x3) computes a 4x4 block of outputs from the 6x6 block of inputs
under it with 36 multiplications instead of 144: the matrix products shrink 4x. The
results are the same up to float rounding (tested against torch and the reference
path): in float32 the largest error is about 2.5e-6 of the largest value for 64 -> 128
channels (torch's own float32 convolution: 3e-7 to 1.6e-6), in float64 about 5e-15.

The 1-D idea (Lavin & Gray, "Fast Algorithms for Convolutional Neural Networks", 2016):
m outputs of a 3-tap correlation, y[k] = sum_j g[j] d[k + j], are the coefficients of
a polynomial product in disguise. Evaluate the polynomials at m + 2 points (here 0, 1,
-1, 1/2, -2 and "infinity" = the top coefficient), multiply there - m + 2
multiplications instead of 3m - and interpolate back. As matrices:

    y = A^T [ (G g) * (B^T d) ]      (* elementwise; A^T m x TILE, G TILE x 3, B^T TILE x TILE)

``transforms`` builds A^T, G and B^T from the points, so there is no table of magic
numbers: A^T evaluates an m-coefficient polynomial at the points (transposed), G
evaluates the kernel, B^T's rows are the Lagrange polynomials of the points (the scale
of each moved into G). With m = 2 and the points 0, 1, -1 this gives the matrices of
F(2x2, 3x3) in Lavin & Gray's paper (up to signs); m = 4 does 1.8x fewer
multiplications again, for more rounding error. Any distinct points give exact
results; they differ in rounding: 0, 1, -1, 1/2, -2 leave a third of the float32
error of the textbook 0, 1, -1, 2, -2 (measured, same speed).

In 2-D the same is done along the rows and the columns of each TILE x TILE input tile d
(tiles start every m pixels, overlapping by 2; each yields an m x m output block):

    Y = A^T [ U * V ] A,   U = G w G^T (per kernel),   V = B^T d B (per input tile)

Summed over input channels, U * V is, for each of the TILE * TILE positions, a matrix
product (tiles x in_channels) @ (in_channels x out_channels): one np.matmul over the
stack of positions. The backward is the transpose (adjoint) of each linear step:

    dM = A dY A^T (per tile)      the gradient at the positions
    dU = V^T @ dM                 -> weight gradient  G^T dU G
    dV = dM @ U^T                 -> input gradient   B dV B^T, overlapping tiles added

Layout: inside this file images are (H, W, N, C), "batch and channels last", and are
handed out as (N, C, H, W) views (as ops/windows.py does with its own layout). The
transforms work on whole rows of tiles at a time, and with (N, C) innermost every tile
column is a contiguous run of N * C numbers that BLAS and NumPy stream through. V is
(positions, tiles, C), U (positions, C, K), their products (positions, tiles, K), the
tiles ordered (tile row, tile column, n): plain C-order arrays that BLAS takes as they
are. The output stays (H, W, N, K) in memory, so the next 3x3 convolution, ReLU and
2x2 max pool (ops/pool.py) read it without reordering.
"""
import threading

import numpy as np

OUT, TAPS = 4, 3                    # F(4x4, 3x3): 4x4 outputs per tile, 3x3 kernel
TILE = OUT + TAPS - 1               # 6x6 input tiles, overlapping by TAPS - 1
POINTS = (0, 1, -1, 0.5, -2)        # interpolation points, and infinity (see transforms)
MIN_CHANNELS = 2                    # one input channel (a grey first layer): im2col is faster
CHUNK_BYTES = 4 << 20               # see _chunks


def _polynomial_from_roots(roots):
    """Coefficients (lowest power first) of prod_r (x - r)."""
    coefficients = np.array([1.0])
    for r in roots:
        coefficients = np.append(0.0, coefficients) - r * np.append(coefficients, 0.0)
    return coefficients


def transforms(points=POINTS, out=OUT, taps=TAPS):
    """A^T (out x n), G (n x taps), B^T (n x n), n = out + taps - 1, from n - 1 finite points.

    Correlation is the transpose of polynomial multiplication, so
    y = E_out^T [(E_taps g) * (V^-T d)], where E_k evaluates a k-coefficient polynomial
    at the points (the last point, infinity, reads its top coefficient) and V = E_n.
    Column i of V^-1 is the Lagrange polynomial of point i, prod_{j != i}(x - p_j) /
    prod_{j != i}(p_i - p_j) (for infinity: prod_j (x - p_j)); the denominators go to G
    (their sign stays in B^T).
    """
    n = out + taps - 1
    if len(points) != n - 1 or len(set(points)) != len(points):
        raise ValueError(f"F({out}, {taps}) needs {n - 1} distinct finite points, got {points}")

    def evaluation(size):
        rows = [[float(p) ** k for k in range(size)] for p in points]
        return np.array(rows + [[0.0] * (size - 1) + [1.0]])

    a_t, g, b_t = evaluation(out).T, evaluation(taps), np.zeros((n, n))
    for i, p in enumerate(points):
        others = [q for q in points if q != p]
        scale = np.prod([p - q for q in others])
        b_t[i, :n - 1] = np.sign(scale) * _polynomial_from_roots(others)
        g[i] /= abs(scale)
    b_t[n - 1] = _polynomial_from_roots(points)
    return a_t + 0.0, g + 0.0, b_t + 0.0       # + 0.0: no -0.0 entries on display


A_T, G, B_T = transforms()
# Every output of a tile is the sum of A_T[u, a] * A_T[v, b] * M[a, b]; the point 1 has
# A_T[:, a] = (1, 1, ..., 1), so a value added to M at (that point, that point) reaches each
# of the tile's OUT x OUT outputs exactly once: that is where the bias goes (a pass over one
# position of M instead of over the whole output).
_ONE = POINTS.index(1)
BIAS_POSITION = _ONE * TILE + _ONE


def applies(x, weight, stride, dilation):
    """Is this convolution one the fast path computes (and where it pays)?"""
    return (weight.shape[2:] == (TAPS, TAPS) and stride == (1, 1) and dilation == (1, 1)
            and x.shape[1] >= MIN_CHANNELS and x.dtype == weight.dtype
            and x.dtype in (np.float32, np.float64))


def conv3x3(x, weight, bias, padding, out_hw):
    """Cross-correlate (N, C, H, W) ``x``, zero-padded by ``padding``, with a (K, C, 3, 3) weight.

    Returns the padded input (an (N, C, H + 2 ph, W + 2 pw) view), the (N, K, out_h, out_w)
    output (a view of an (H, W, N, K) array) and what ``conv3x3_backward`` needs.
    """
    n, c, height, width = x.shape
    k = len(weight)
    tiles_hw = (-(-out_hw[0] // OUT), -(-out_hw[1] // OUT))
    ph, pw = padding
    # zeros around the image, and after it as many more as the last tiles need
    image = np.zeros(_image_hw(tiles_hw) + (n, c), dtype=x.dtype)
    image[ph:ph + height, pw:pw + width] = x.transpose(2, 3, 0, 1)
    padded = image[:height + 2 * ph, :width + 2 * pw].transpose(2, 3, 0, 1)
    u = _weight_transform(weight)                                     # (positions, C, K)
    out = np.empty((tiles_hw[0] * OUT, tiles_hw[1] * OUT, n, k), dtype=x.dtype)
    for first, last in _chunks(tiles_hw, n * max(c, k) * x.dtype.itemsize):
        v = _input_transform(image[OUT * first:OUT * last + TAPS - 1], tiles_hw[1])
        m = np.matmul(v, u, out=_SCRATCH.area("B", v.shape[:2] + (k,), x.dtype))
        if bias is not None:
            m[BIAS_POSITION] += bias
        _output_transform(m.reshape(TILE, TILE, last - first, tiles_hw[1], -1),
                          out[OUT * first:OUT * last])
    # backward computes V again from the image rather than keeping it: V is 2.25 times the
    # image, held from forward to backward for every layer, and new memory every step
    return padded, out[:out_hw[0], :out_hw[1]].transpose(2, 3, 0, 1), (image, u, tiles_hw)


def conv3x3_backward(grad, saved, padded_hw, needs_input_grad, has_bias):
    """Gradients for an (N, K, out_h, out_w) output gradient: (padded input (N, C, H, W) view
    or None, weight, bias or None), each the exact transpose of a step of ``conv3x3``."""
    image, u, tiles_hw = saved
    (c, k), n, dtype = u.shape[1:], image.shape[2], image.dtype
    blocks = _blocks(grad, tiles_hw)
    du = np.zeros(u.shape, dtype=dtype)                               # (positions, C, K)
    grad_bias = np.zeros(k, dtype=dtype) if has_bias else None
    grad_image = None
    if needs_input_grad:   # with room for _add_tiles below and right; cropped at the end
        grad_image = np.zeros((OUT * (tiles_hw[0] + 1), OUT * (tiles_hw[1] + 1), n * c), dtype)
    for first, last in _chunks(tiles_hw, n * max(c, k) * dtype.itemsize):
        dm = _output_transform_transposed(blocks[first:last]).reshape(TILE * TILE, -1, k)
        if has_bias:
            grad_bias += dm[BIAS_POSITION].sum(axis=0)
        v = _input_transform(image[OUT * first:OUT * last + TAPS - 1], tiles_hw[1])  # as forward
        du += np.matmul(v.transpose(0, 2, 1), dm)
        if needs_input_grad:
            dv = np.matmul(dm, u.transpose(0, 2, 1), out=_SCRATCH.area("A", v.shape, dtype))
            _input_transform_transposed(dv.reshape(TILE, TILE, last - first, tiles_hw[1], -1),
                                        grad_image[OUT * first:OUT * (last + 1)])
    grad_weight = (_KRON_G.T @ du.reshape(TILE * TILE, -1)).reshape(TAPS, TAPS, c, k)
    grad_weight = grad_weight.transpose(3, 2, 0, 1).astype(dtype, copy=False)
    if grad_image is not None:
        grad_image = grad_image.reshape(grad_image.shape[:2] + (n, c))
        grad_image = grad_image[:padded_hw[0], :padded_hw[1]].transpose(2, 3, 0, 1)
    return grad_image, grad_weight, grad_bias


def _chunks(tiles_hw, bytes_per_tile):
    """(first, last) tile rows, a few at a time: the temporaries of one chunk (TILE^2 values
    per tile and channel) stay near CHUNK_BYTES, small enough to stay in the CPU's caches
    and to keep the work areas small, large enough for BLAS to run at full speed."""
    per_row = TILE * TILE * tiles_hw[1] * bytes_per_tile
    step = max(1, CHUNK_BYTES // max(per_row, 1))                     # an empty batch: 0 bytes
    return [(first, min(first + step, tiles_hw[0])) for first in range(0, tiles_hw[0], step)]


# --- the transforms: small matrices applied along rows, then along columns -------------------
# Each step is one np.matmul: the transform matrix times (tile axis x long contiguous rest),
# broadcast over the other axes. The tiles overlap, so the forward reads them through a
# strided view (``_tiles``) and the transposed steps add the overlapping parts back up.

_KRON_G = np.kron(G, G)     # (positions, 9): U[a * TILE + b] = sum_ij G[a, i] G[b, j] w[i, j]


class _Scratch(threading.local):
    """Work areas "A", "B" and "C", reused from call to call for the large temporaries
    that never leave this file (one thread's own: threading.local).

    Why: a step allocates and frees tens of MB of temporaries. The C allocator then hands
    that memory back to the operating system, and the next step faults every page in
    again: ~4,000 page faults a step, about half the time of a 3x16x16 CNN step. Kept
    areas cost no faults. The rule that keeps them correct: each function writes an
    area only once the array it held before is used up (the comments say which);
    requests over LIMIT bytes get fresh memory, so one huge batch is not kept around.
    """

    LIMIT = 64 << 20

    def __init__(self):
        self.areas = {}

    def area(self, name, shape, dtype):
        size = int(np.prod(shape)) * np.dtype(dtype).itemsize
        if size > self.LIMIT:
            return np.empty(shape, dtype=dtype)
        area = self.areas.get(name)
        if area is None or area.nbytes < size:
            area = self.areas[name] = np.empty(size, dtype=np.uint8)
        return area[:size].view(dtype).reshape(shape)


_SCRATCH = _Scratch()


def _image_hw(tiles_hw):
    return (tiles_hw[0] * OUT + TAPS - 1, tiles_hw[1] * OUT + TAPS - 1)


def _as(matrix, array):
    return matrix if matrix.dtype == array.dtype else matrix.astype(array.dtype)


def _tiles(array, axis):
    """A view of ``array`` with ``axis`` cut into windows of TILE starting every OUT."""
    count = (array.shape[axis] - TILE) // OUT + 1
    step = array.strides[axis]
    return np.lib.stride_tricks.as_strided(
        array, array.shape[:axis] + (count, TILE) + array.shape[axis + 1:],
        array.strides[:axis] + (OUT * step, step) + array.strides[axis + 1:], writeable=False)


def _blocks(grad, tiles_hw):
    """The (N, K, out_h, out_w) gradient as (th, OUT, tw, OUT, N * K): each tile's outputs."""
    g = np.ascontiguousarray(grad.transpose(2, 3, 0, 1))          # no copy for our own outputs
    need = (tiles_hw[0] * OUT, tiles_hw[1] * OUT)
    if g.shape[:2] != need:                                        # odd outputs: zeros after
        covered = np.zeros(need + g.shape[2:], dtype=g.dtype)
        covered[:g.shape[0], :g.shape[1]] = g
        g = covered
    return g.reshape(tiles_hw[0], OUT, tiles_hw[1], OUT, -1)


def _input_transform(image, tw):
    """V = B^T d B for every tile d of (H, W, N, C) image rows: (positions, tiles, C)."""
    height, width, n, c = image.shape
    th = (height - TAPS + 1) // OUT
    b_t = _as(B_T, image)
    by_rows = _SCRATCH.area("A", (th, TILE, width * n * c), image.dtype)
    np.matmul(b_t, _tiles(image.reshape(height, -1), 0), out=by_rows)
    by_rows = by_rows.reshape(th, TILE, width, n * c)
    v = _SCRATCH.area("C", (TILE, TILE, th, tw, n * c), image.dtype)
    np.matmul(b_t, _tiles(by_rows, 2), out=v.transpose(2, 0, 3, 1, 4))
    return v.reshape(TILE * TILE, th * tw * n, c)


def _input_transform_transposed(dv, image):
    """The adjoint of ``_input_transform``: B dV B^T per tile, overlapping tiles added up.
    Adds (TILE, TILE, th, tw, N * C) onto ``image`` rows (OUT * (th + 1), W, N * C)."""
    th, tw, nc = dv.shape[2:]
    width = image.shape[1]
    b = _as(B_T, dv).T
    columns = _SCRATCH.area("B", (th, TILE, tw, TILE, nc), dv.dtype)
    np.matmul(b, dv.transpose(2, 0, 3, 1, 4), out=columns)
    by_rows = _SCRATCH.area("A", (th, TILE, width, nc), dv.dtype)    # dv is used up
    by_rows[...] = 0
    _add_tiles(by_rows, columns, 2)
    rows = _SCRATCH.area("B", (th, TILE, width * nc), dv.dtype)      # columns are used up
    np.matmul(b, by_rows.reshape(th, TILE, -1), out=rows)
    _add_tiles(image.reshape(len(image), -1), rows, 0)


def _add_tiles(target, tiles, axis):
    """The adjoint of ``_tiles``: add (.., tiles, TILE, ..) back onto ``axis`` of ``target``
    (OUT * (tiles + 1) long), in two passes: each tile's first OUT entries, then its last
    TAPS - 1, which overlap the next tile."""
    count, rest = tiles.shape[axis], target.shape[axis + 1:]
    head = target[(slice(None),) * axis + (slice(0, OUT * count),)]
    head.reshape(head.shape[:axis] + (count, OUT) + rest)[...] += \
        tiles[(slice(None),) * (axis + 1) + (slice(0, OUT),)]
    tail = target[(slice(None),) * axis + (slice(OUT, OUT * count + OUT),)]
    tail = tail.reshape(tail.shape[:axis] + (count, OUT) + rest)
    tail[(slice(None),) * (axis + 1) + (slice(0, TAPS - 1),)] += \
        tiles[(slice(None),) * (axis + 1) + (slice(OUT, TILE),)]


def _weight_transform(weight):
    """U = G w G^T for every (in, out) channel pair: (positions, C, K), in the weight's dtype."""
    k, c = weight.shape[:2]
    taps = weight.transpose(2, 3, 1, 0).reshape(TAPS * TAPS, c * k)
    return (_KRON_G @ taps).reshape(TILE * TILE, c, k).astype(weight.dtype, copy=False)


def _output_transform(m, out):
    """Y = A^T M A for every tile: (TILE, TILE, th, tw, N * K) into out (th * OUT, tw * OUT, N, K)."""
    th, tw, nk = m.shape[2:]
    a_t = _as(A_T, m)
    by_rows = _SCRATCH.area("A", (OUT, TILE * th * tw * nk), m.dtype)
    np.matmul(a_t, m.reshape(TILE, -1), out=by_rows)
    by_rows = by_rows.reshape(OUT, TILE, th, tw, nk)
    blocks = out.reshape(th, OUT, tw, OUT, nk)                        # a view: out is contiguous
    np.matmul(a_t, by_rows.transpose(0, 2, 3, 1, 4), out=blocks.transpose(1, 0, 2, 3, 4))


def _output_transform_transposed(blocks):
    """The adjoint of ``_output_transform``: dM = A dY A^T per tile, (TILE, TILE, th, tw, NK)."""
    th, _, tw, _, nk = blocks.shape
    a = _as(A_T, blocks).T
    by_rows = _SCRATCH.area("A", (th, TILE, tw * OUT * nk), blocks.dtype)
    np.matmul(a, blocks.reshape(th, OUT, -1), out=by_rows)
    by_rows = by_rows.reshape(th, TILE, tw, OUT, nk)
    dm = _SCRATCH.area("B", (TILE, TILE, th, tw, nk), blocks.dtype)
    np.matmul(a, by_rows, out=dm.transpose(2, 0, 3, 1, 4))
    return dm
