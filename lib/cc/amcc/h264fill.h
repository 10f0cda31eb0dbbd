/* amcc/h264fill.h - keeps libavcodec's H.264 decoder in step when a lost frame carried the
 * frame_num wrap (issue 15).
 *
 * An intra-refresh stream (x264, no B-frames) has no IDR after the first frame, so frame_num
 * wraps every 2^log2_max_frame_num frames, and without B-frames x264 signals
 * pic_order_cnt_type 2: the picture order count is 2 x (FrameNumOffset + frame_num), with
 * FrameNumOffset raised by MaxFrameNum when frame_num goes down. When the frames lost include
 * the one with frame_num 0, libavcodec (5.1) fills the frame_num gap with "non-existing"
 * frames but does not raise FrameNumOffset for the wrap inside the gap: the next frames get a
 * POC one wrap too low, below the last picture it output, and it drops them as out of order
 * ("no picture ooo") until frame_num wraps again (30 frames at log2_max_frame_num 5).
 *
 * The fix on the receiver's side: when an access unit's frame_num shows that the frames
 * missing before it include frame_num 0, hand the decoder a synthetic access unit first: one P
 * slice with frame_num 0 whose macroblocks are all skipped (a copy of the last reference
 * picture, what the decoder's own gap concealment shows). The decoder then sees the wrap on a
 * real picture and counts it; the frames still missing are an ordinary gap that does not
 * cross 0. A lost IDR frame also makes frame_num go down (it restarts at 0), and a synthetic
 * picture would then let the decoder show the P frames after it predicted from the wrong
 * picture, where it now drops them; the two are told apart by the number of frames missing:
 * a wrap inside the gap needs frame_num to have advanced by exactly that many (mod
 * MaxFrameNum), which a lost IDR frame breaks unless by chance (one in MaxFrameNum). When the
 * caller cannot count the missing frames, the stream must have wrapped on a non-IDR picture
 * since its last IDR (an intra-refresh stream; an IDR stream whose key interval is below
 * MaxFrameNum never does). Only streams it can write such a slice for are touched: pic_order_cnt_type 2,
 * frame pictures only (frame_mbs_only_flag), CAVLC, one slice group, no weighted prediction
 * (x264's baseline profile meets all of them); anything else passes unchanged.
 *
 * Pure C11, no allocation: one amcc_h264fill per stream, fed every access unit (Annex B byte
 * stream, start codes included) in decoding order. */
#ifndef AMCC_H264FILL_H
#define AMCC_H264FILL_H
#include <stddef.h>
#include <stdint.h>
#include "amcc/amcc.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct amcc_h264fill_sps {
  uint8_t valid, usable;              /* usable: poc type 2, frame_mbs_only */
  uint8_t log2_max_frame_num;
  uint32_t mbs;                       /* PicSizeInMbs */
} amcc_h264fill_sps;

typedef struct amcc_h264fill_pps {
  uint8_t valid, usable;              /* usable: CAVLC, 1 slice group, no weighted P */
  uint8_t sps_id;
  uint8_t redundant_pic_cnt_present, deblocking_filter_control_present;
} amcc_h264fill_pps;

typedef struct amcc_h264fill {
  amcc_h264fill_sps sps[32];
  amcc_h264fill_pps pps[256];
  int have_prev;                      /* a picture was seen since the last IDR or reset */
  uint32_t prev_frame_num;            /* its frame_num */
  int wrapped;                        /* a non-IDR picture with frame_num 0 since the last IDR */
  uint64_t filled;                    /* synthetic access units written */
} amcc_h264fill;

/* Empty state (no parameter sets, no picture yet). */
void amcc_h264fill_init (amcc_h264fill * f);

/* Forget the last picture (a flush or a new stream), keep the parameter sets. */
void amcc_h264fill_reset (amcc_h264fill * f);

/* Looks at access unit AU (LEN bytes, Annex B) before the decoder gets it; MISSING is the
 * number of frames lost between the previous access unit and this one (from the RTP
 * timestamps or the frame index), -1 if unknown. Returns the length of the synthetic access
 * unit (written to OUT, at most CAP bytes, start code included) that
 * must reach the decoder before AU, 0 when none is needed (or none can be written), or
 * AMCC_ERR_NOSPACE when CAP is too small (then nothing is recorded for AU: call again). The
 * state then holds AU's frame_num. */
long amcc_h264fill_au (amcc_h264fill * f, const uint8_t * au, size_t len, long missing,
    uint8_t * out, size_t cap);

/* Room that always suffices for OUT: a skip slice of up to 2^20 macroblocks. */
#define AMCC_H264FILL_MAX_BYTES 64

#ifdef __cplusplus
}
#endif
#endif
