# x3[i] = x[i] * 3
        S2R  R0, SR_GLOBAL_TID_X
        S2R  R1, SR_NTID_X
        S2R  R2, SR_NCTAID_X
        IMUL R1, R1, R2
        LDP  R2, n
        LDP  R3, x
        LDP  R4, x3
loop:   ISETP.GE P0, R0, R2
@P0     EXIT
        SHL  R5, R0, 2
        IADD R6, R3, R5
        LD   R7, [R6]
        IMUL R7, R7, 3
        IADD R6, R4, R5
        ST   [R6], R7
        IADD R0, R0, R1
        BRA  loop
