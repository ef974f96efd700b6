/* Test-only stand-in for Windows' bcryptprimitives.dll, which Debian's Wine 8.0 lacks.
 * Rust's standard library for x86_64-pc-windows-gnu imports ProcessPrng from it (present on
 * Windows 10 and later). This stub forwards to RtlGenRandom (advapi32's SystemFunction036).
 * It is installed into the Wine prefix's system32 only, never shipped beside the exe, where it
 * would shadow the real DLL on Windows. */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
    while (len > 0) {
        ULONG chunk = len > 0x10000000 ? 0x10000000 : (ULONG)len;
        if (!SystemFunction036(data, chunk)) {
            return FALSE;
        }
        data += chunk;
        len -= chunk;
    }
    return TRUE;
}
