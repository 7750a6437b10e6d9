# Sources of the ANE notch probe (framework/src/ane), paths relative to framework/.
set(PERFGATE_ANE_SOURCES)
