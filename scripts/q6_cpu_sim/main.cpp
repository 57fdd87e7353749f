// Runs one rendered q6_head variant (KERNEL_SRC, entry ENTRY) on the CPU over the case in
// argv[1] (written by the Rust test `q6_head::emulate::tests::dump_cpu_sim_case`) at
// every width 1..max_width, compares with the f64 reference, and checks that rows past
// the width stay poisoned.
#include "shim.h"
#include KERNEL_SRC
#define STR2(x) #x
#define STR(x) STR2(x)

template <class T> static std::vector<T> load(const std::string& p) {
    FILE* f = fopen(p.c_str(), "rb");
    if (!f) { perror(p.c_str()); exit(2); }
    fseek(f, 0, SEEK_END); long n = ftell(f); fseek(f, 0, SEEK_SET);
    std::vector<T> v(n / sizeof(T));
    if (fread(v.data(), 1, n, f) != (size_t)n) exit(2);
    fclose(f);
    return v;
}

int main(int argc, char** argv) {
    if (argc < 6) return 2;
    std::string dir = argv[1];
    int n = atoi(argv[2]), k = atoi(argv[3]), tokens = atoi(argv[4]), max_width = atoi(argv[5]);
    auto codes = load<uint4>(dir + "/codes.bin");
    auto scales = load<uint2>(dir + "/scales.bin");
    auto x = load<__nv_bfloat16>(dir + "/x.bin");
    auto ref = load<double>(dir + "/reference.bin");
    int warps = Q6_W, rows_per_cta = 16 * Q6_W * Q6_TPW, grid = (n + rows_per_cta - 1) / rows_per_cta;
    double worst = 0;
    for (int t = 1; t <= max_width; ++t) {
        std::vector<float> y((size_t)tokens * n);
        memset(y.data(), 0xff, y.size() * 4);
        for (int b = 0; b < grid; ++b)
            for (int w = 0; w < warps; ++w) {
                std::barrier<> bar(32);
                g_bar = &bar;
                std::vector<std::thread> th;
                for (int l = 0; l < 32; ++l)
                    th.emplace_back([&, l] {
                        t_lane = l;
                        threadIdx.x = w * 32 + l;
                        blockIdx.x = b;
                        ENTRY(codes.data(), scales.data(), x.data(), y.data(), n, k, t);
                    });
                for (auto& h : th) h.join();
            }
        for (int r = 0; r < tokens; ++r) {
            double num = 0, den = 0;
            for (int i = 0; i < n; ++i) {
                float g = y[(size_t)r * n + i];
                uint32_t bits; memcpy(&bits, &g, 4);
                if (r >= t) {
                    if (bits != 0xffffffffu) { printf("%s FAIL t=%d: wrote row %d col %d\n", STR(ENTRY), t, r, i); return 1; }
                    continue;
                }
                if (!std::isfinite(g)) { printf("%s FAIL t=%d: row %d col %d unwritten\n", STR(ENTRY), t, r, i); return 1; }
                double w = ref[(size_t)r * n + i];
                num += (g - w) * (g - w); den += w * w;
            }
            if (r < t) worst = std::max(worst, std::sqrt(num / den));
        }
    }
    bool ok = worst < 1e-5;
    printf("%-28s widths 1..%-2d max rel err %.2e  %s\n", STR(ENTRY), max_width, worst, ok ? "pass" : "FAIL");
    return ok ? 0 : 1;
}
