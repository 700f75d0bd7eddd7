// Everything the library offers, in one include.
#pragma once

#include "clusterscore/classic.h"
#include "clusterscore/error.h"
#include "clusterscore/estimate.h"
#include "clusterscore/fingerprint.h"
#include "clusterscore/ids.h"
#include "clusterscore/inputs.h"
#include "clusterscore/interrupt.h"
#include "clusterscore/memory.h"
#include "clusterscore/metric_info.h"
#include "clusterscore/pair_sample.h"
#include "clusterscore/plan.h"
#include "clusterscore/progress.h"
#include "clusterscore/scores.h"
#include "clusterscore/threads.h"
#include "clusterscore/types.h"
