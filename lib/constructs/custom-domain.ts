import { CfnOutput } from 'aws-cdk-lib';
import {
  BasePathMapping,
  DomainName,
  EndpointType,
  type RestApi,
  SecurityPolicy,
} from 'aws-cdk-lib/aws-apigateway';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import { Construct } from 'constructs';

export interface CustomDomainProps {
  readonly restApi: RestApi;
  /** e.g. `sql.example.com`; point a DNS CNAME (or alias) at the `CustomDomainTarget` output. */
  readonly domainName: string;
  /** An ACM certificate for the name, in the stack's region (Regional endpoint). */
  readonly certificateArn: string;
}

/**
 * The API at the root of its own domain (no stage prefix), so the OAuth well-known URLs are where
 * MCP clients compute them: RFC 8414 and RFC 9728 insert `/.well-known/...` right after the host,
 * which the `https://<id>.execute-api.<region>.amazonaws.com/prod` URL cannot serve (its paths
 * all start with the stage). The mapping has no base path: `https://<domain>/mcp/v1`.
 */
export class CustomDomain extends Construct {
  readonly baseUrl: string;

  constructor(scope: Construct, id: string, props: CustomDomainProps) {
    super(scope, id);
    const domain = new DomainName(this, 'Domain', {
      domainName: props.domainName,
      certificate: Certificate.fromCertificateArn(this, 'Certificate', props.certificateArn),
      endpointType: EndpointType.REGIONAL,
      securityPolicy: SecurityPolicy.TLS_1_2,
    });
    new BasePathMapping(this, 'RootMapping', { domainName: domain, restApi: props.restApi });
    this.baseUrl = `https://${props.domainName}`;
    new CfnOutput(this, 'Target', {
      description: `DNS target for ${props.domainName} (CNAME or alias record)`,
      value: domain.domainNameAliasDomainName,
    });
  }
}
