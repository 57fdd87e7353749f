// common/types.cuh: fixed-width integer types without <cstdint> (NVRTC-friendly).
#ifndef NINFER_COMMON_TYPES_CUH
#define NINFER_COMMON_TYPES_CUH
typedef signed char int8_t;
typedef unsigned char uint8_t;
typedef int int32_t;
typedef unsigned int uint32_t;
typedef long long int64_t;
typedef unsigned long long uint64_t;
#endif
