

kSequential


fusion.0kKernel
&

