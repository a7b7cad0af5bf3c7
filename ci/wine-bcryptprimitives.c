/* A stand-in for Windows' bcryptprimitives.dll, which Wine 8 (Debian 12)
 * lacks: Rust's standard library (1.78 and later) imports ProcessPrng from
 * it for random numbers (HashMap keys), so no Rust program starts without
 * it. ProcessPrng fills the buffer from RtlGenRandom (advapi32's
 * SystemFunction036), which Wine has. Only ci/windows.sh uses this, and
 * only inside its own Wine prefix. */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG len);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len)
{
    while (len > 0) {
        ULONG n = len > 0x10000000 ? 0x10000000 : (ULONG)len;
        if (!SystemFunction036(data, n))
            return FALSE;
        data += n;
        len -= n;
    }
    return TRUE;
}
