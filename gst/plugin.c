/* plugin.c - registers the gst-amcast elements (plugin "amcast", library gstamcast). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <gst/gst.h>
#include "asmpsink/gstasmpsink.h"
#include "asmpsrc/gstasmpsrc.h"
#include "asspsimulcast/gstasspsimulcast.h"
#include "asspsrc/gstasspsrc.h"
#include "avmrclayers/gstavmrclayers.h"
#include "avmrcsrc/gstavmrcsrc.h"
#include "avmrcsynth/gstavmrcsynth.h"
#include "h264wrapfill/gsth264wrapfill.h"
#include "rmanprelay/gstrmanprelay.h"
#include "rmanpsink/gstrmanpsink.h"
#include "rmanpsrc/gstrmanpsrc.h"

static gboolean
plugin_init (GstPlugin * plugin)
{
  gboolean ret = FALSE;

  ret |= GST_ELEMENT_REGISTER (asmpsink, plugin);
  ret |= GST_ELEMENT_REGISTER (asmpsrc, plugin);
  ret |= GST_ELEMENT_REGISTER (asspsimulcast, plugin);
  ret |= GST_ELEMENT_REGISTER (asspsrc, plugin);
  ret |= GST_ELEMENT_REGISTER (avmrclayers, plugin);
  ret |= GST_ELEMENT_REGISTER (avmrcsrc, plugin);
  ret |= GST_ELEMENT_REGISTER (avmrcsynth, plugin);
  ret |= GST_ELEMENT_REGISTER (h264wrapfill, plugin);
  ret |= GST_ELEMENT_REGISTER (rmanpsink, plugin);
  ret |= GST_ELEMENT_REGISTER (rmanprelay, plugin);
  ret |= GST_ELEMENT_REGISTER (rmanpsrc, plugin);
  return ret;
}

#define PACKAGE "gst-amcast"
GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, amcast,
    "Adaptive multicast video: ASMP (and TFMCC), ASSP simulcast and AVMRC layers over RTP/RTCP; "
    "RMANP reliable multicast of byte streams",
    plugin_init, "0.1.0", "LGPL", "gst-amcast", "https://localhost/gst-amcast")
