/*
 * bcryptprimitives.dll for Wine 8, which has none: Go's runtime (1.26
 * here) loads ProcessPrng from it at start-up, for its random numbers, and
 * exits without. This one forwards to BCryptGenRandom (bcrypt.dll, which Wine
 * has) with the system's preferred generator. Built and installed into the
 * Wine prefix by .ci/windows/test.sh, never shipped.
 */
#include <windows.h>
#include <bcrypt.h>

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len)
{
	while (len > 0) {
		ULONG n = len > 0x40000000 ? 0x40000000 : (ULONG)len;
		if (!BCRYPT_SUCCESS(BCryptGenRandom(NULL, data, n, BCRYPT_USE_SYSTEM_PREFERRED_RNG)))
			return FALSE;
		data += n;
		len -= n;
	}
	return TRUE;
}
