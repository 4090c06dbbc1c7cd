// Shared-memory tiled kernels (transpose, f32 matmul) for tests/test_emulator_nvcc.py.

#define TILE 32
// out (cols x rows) = in (rows x cols) transposed; block (32, 8), 32x33 tile (no bank conflicts)
extern "C" __global__ void transpose(const float *in, float *out, int rows, int cols) {
    __shared__ float tile[TILE][TILE + 1];
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += blockDim.y)
        if (x < cols && y + j < rows) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * cols + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += blockDim.y)
        if (x < rows && y + j < cols) out[(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
}

#define T16 16
// C (M x N) = A (M x K) @ B (K x N), f32, 16x16 shared tiles, block (16, 16)
extern "C" __global__ void matmul_tiled(const float *A, const float *B, float *C,
                                        int M, int N, int K) {
    __shared__ float As[T16][T16];
    __shared__ float Bs[T16][T16];
    int row = blockIdx.y * T16 + threadIdx.y, col = blockIdx.x * T16 + threadIdx.x;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += T16) {
        int ka = k0 + threadIdx.x, kb = k0 + threadIdx.y;
        As[threadIdx.y][threadIdx.x] = (row < M && ka < K) ? A[row * K + ka] : 0.0f;
        Bs[threadIdx.y][threadIdx.x] = (kb < K && col < N) ? B[kb * N + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < T16; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
        __syncthreads();
    }
    if (row < M && col < N) C[row * N + col] = acc;
}
