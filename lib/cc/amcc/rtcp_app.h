/* rtcp_app.h - RTCP APP packet framing (RFC 3550 6.7) and bounds-checked big-endian cursors,
 * shared by the ASMP and TFMCC payloads. Byte layout: docs/wire-formats.md.
 *
 *   0                   1                   2                   3
 *   |V=2|P| subtype |   PT=APP=204  |             length            |
 *   |                           SSRC/CSRC                           |
 *   |                          name (ASCII)                         |
 *   |                   application-dependent data ...              |
 */
#ifndef AMCC_RTCP_APP_H
#define AMCC_RTCP_APP_H
#include <stddef.h>
#include <stdint.h>
#include "amcc.h"
#ifdef __cplusplus
extern "C" {
#endif

#define AMCC_RTCP_PT_SR 200
#define AMCC_RTCP_PT_RR 201
#define AMCC_RTCP_PT_APP 204
#define AMCC_RTCP_APP_HEADER_LEN 12
#define AMCC_RTCP_MAX_PACKET 65536    /* (length field max + 1) * 4 */

/* One parsed APP packet. data points into the caller's buffer. */
typedef struct amcc_rtcp_app {
  uint8_t subtype;        /* 0..31 */
  uint32_t ssrc;
  char name[4];           /* not NUL-terminated */
  const uint8_t *data;    /* application-dependent data, padding removed */
  size_t data_len;
  size_t packet_len;      /* bytes this packet occupies: (length + 1) * 4 */
} amcc_rtcp_app;

/* Parse the RTCP packet at buf[0..len): must be V=2, PT=204, length within len; the P bit is
 * honoured (padding count must fit the data). Errors: AMCC_ERR_TRUNCATED, AMCC_ERR_VERSION,
 * AMCC_ERR_TYPE (not APP), AMCC_ERR_FIELD (bad padding). */
int amcc_rtcp_app_parse (const uint8_t *buf, size_t len, amcc_rtcp_app *out);
/* Walk a compound RTCP packet and find the first APP with this name and subtype (subtype < 0:
 * any). Every header on the way is bounds-checked. AMCC_ERR_TYPE if none matches. */
int amcc_rtcp_app_find (const uint8_t *buf, size_t len, const char name[4], int subtype,
    amcc_rtcp_app *out);
/* Write an APP packet (P = 0). data_len must be a multiple of 4 (AMCC_ERR_PARAM otherwise),
 * subtype <= 31. *written = 12 + data_len. AMCC_ERR_NOSPACE if cap is too small. */
int amcc_rtcp_app_write (uint8_t *buf, size_t cap, uint8_t subtype, uint32_t ssrc,
    const char name[4], const uint8_t *data, size_t data_len, size_t *written);

/* RFC 3550 6.3.1 / A.7 RTCP report interval in seconds, for deciding when eq. 20 (ASMP 3.8)
 * replaces it. members/senders: group counts (members >= 1); rtcp_bw_Bps: RTCP bandwidth in
 * bytes/s (5 % of the session); avg_rtcp_size: bytes; min_time_s: 5 s normally (halved when
 * initial). Deterministic part: amcc_rtcp_interval_det(); amcc_rtcp_interval() applies the
 * randomisation [0.5, 1.5) x u and the e - 3/2 compensation with u uniform in [0,1).
 * Invalid input (NaN, bandwidth <= 0) gives min_time_s. */
double amcc_rtcp_interval_det (uint32_t members, uint32_t senders, double rtcp_bw_Bps, int we_sent,
    double avg_rtcp_size, double min_time_s, int initial);
double amcc_rtcp_interval (uint32_t members, uint32_t senders, double rtcp_bw_Bps, int we_sent,
    double avg_rtcp_size, double min_time_s, int initial, double u);

/* Big-endian cursors. Reads past the end return 0 and set err = AMCC_ERR_TRUNCATED; writes past
 * cap write nothing and set err = AMCC_ERR_NOSPACE. Check err once at the end. */
typedef struct amcc_rd { const uint8_t *p; size_t len, pos; int err; } amcc_rd;
typedef struct amcc_wr { uint8_t *p; size_t cap, pos; int err; } amcc_wr;
void amcc_rd_init (amcc_rd *r, const uint8_t *p, size_t len);
uint8_t amcc_rd_u8 (amcc_rd *r);
uint16_t amcc_rd_u16 (amcc_rd *r);
uint32_t amcc_rd_u32 (amcc_rd *r);
uint64_t amcc_rd_u64 (amcc_rd *r);
size_t amcc_rd_left (const amcc_rd *r);
void amcc_wr_init (amcc_wr *w, uint8_t *p, size_t cap);
void amcc_wr_u8 (amcc_wr *w, uint8_t v);
void amcc_wr_u16 (amcc_wr *w, uint16_t v);
void amcc_wr_u32 (amcc_wr *w, uint32_t v);
void amcc_wr_u64 (amcc_wr *w, uint64_t v);

#ifdef __cplusplus
}
#endif
#endif
