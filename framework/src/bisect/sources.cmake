# perfgate bisect (perfgate/bisect/): reading a commit's recordings, judging a commit,
# the kept recordings, git bisect, the bisect itself and its report.
set(PERFGATE_BISECT_SOURCES
  src/bisect/git.cc
  src/bisect/judgement.cc
  src/bisect/measurement.cc
  src/bisect/measurements.cc
  src/bisect/proof.cc
  src/bisect/report.cc
  src/bisect/session.cc
  src/bisect/workspace.cc
)
