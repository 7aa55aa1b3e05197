// File: examples/cli/training_report.h
//
// A TrainingPlan for people (`dcplan train`, and the training section of `dcplan fit --workload`):
// the parallel split, MFU and HFU, step time and where it goes, memory per GPU, throughput and time
// to train. Numbers come from the proto and are printed through units/format.
#pragma once

#include <string>

#include "proto/training.pb.h"

namespace dcplan::cli {

// A multi-line summary of one training plan.
std::string TrainingTable(const TrainingPlan& plan);

}  // namespace dcplan::cli
