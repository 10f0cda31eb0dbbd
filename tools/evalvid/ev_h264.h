/* ev_h264.h - splits an H.264 Annex B byte stream into access units (one per frame). */
#ifndef EV_H264_H
#define EV_H264_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
  size_t off, len;   /* byte range in the stream, start codes included */
  char type;         /* 'I' (IDR or I slices), 'P', 'B', or 'H' (no slice: parameter sets/SEI) */
} ev_au;

/* Returns the number of access units (array in *aus, malloc'ed), or -1 (message in err) if the
 * data does not start with an Annex B start code. A new AU starts at an access unit delimiter,
 * at SPS/PPS/SEI after a slice, or at a slice with first_mb_in_slice == 0 after a slice. */
long ev_h264_split(const uint8_t *data, size_t len, ev_au **aus, char *err, size_t errlen);

/* Copies the slice NAL units (types 1-5, with their start codes) of one access unit to OUT (at
 * least LEN bytes) and returns the bytes written: the frame without its own parameter sets, SEI
 * and delimiter, as a receiver that lost those packets has it. */
size_t ev_h264_slices_only(const uint8_t *au, size_t len, uint8_t *out);
/* One picture packet (sd type I/P/B) of a frame, in sequence order: RTP payload bytes (size - 12)
 * and whether it arrived. */
typedef struct { uint32_t payload; bool got; } ev_pkt_part;

/* What a receiver holds of access unit AU (LEN bytes) when only some of its picture packets
 * arrived, as fed to a decoder with error concealment. The picture packets carry the AU's slice
 * NAL units in order (start codes excluded), packet k a share of those bytes proportional to its
 * payload: exact for one NAL unit per packet or for the AU cut into MTU pieces, within 2 bytes per
 * packet for FU-A fragments. A slice NAL unit is kept up to its first lost byte (its entropy-coded
 * data cannot be resumed after a gap) and dropped if its first byte was lost. The other NAL units
 * (SPS/PPS/SEI/AUD) travel in the header packets HDR (sd type H), one per packet: one of N bytes is
 * kept if a header packet of payload N arrived, or, when no header packet has that size (it was
 * sent elsewhere), iff every header packet arrived. Writes to OUT (at least LEN bytes), returns the
 * bytes written; *CUT = slice bytes not fed. */
size_t ev_h264_received(const uint8_t *au, size_t len, const ev_pkt_part *pic, size_t npic,
                        const ev_pkt_part *hdr, size_t nhdr, uint8_t *out, size_t *cut);
#endif
