/*
 * A stand-in for Windows' bcryptprimitives.dll, for running toolhost's
 * Windows test binaries under Wine 8 (Debian 12), which lacks the DLL.
 * Go 1.26's Windows runtime takes its random bytes from ProcessPrng and
 * refuses to start without it. This DLL exports ProcessPrng and fills the
 * buffer from advapi32's RtlGenRandom (SystemFunction036), which Wine has.
 * Newer Wine versions ship the DLL; the script that installs this one
 * does not replace a real one.
 *
 * Build: x86_64-w64-mingw32-gcc -shared -o bcryptprimitives.dll bcryptprimitives.c -ladvapi32
 */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len)
{
	/* RtlGenRandom takes a ULONG length: fill big buffers in chunks. */
	while (len > 0) {
		ULONG chunk = len > 0x40000000 ? 0x40000000 : (ULONG)len;
		if (!SystemFunction036(data, chunk))
			return FALSE;
		data += chunk;
		len -= chunk;
	}
	return TRUE;
}
